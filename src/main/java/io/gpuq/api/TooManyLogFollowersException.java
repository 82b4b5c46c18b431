package io.gpuq.api;

import java.time.Duration;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.ProblemDetail;
import org.springframework.web.ErrorResponseException;

/**
 * The caller already follows as many logs as {@code gpuq.api.max-log-followers-per-caller} allows:
 * 429 with {@code Retry-After}, as a problem like every other error.
 */
public class TooManyLogFollowersException extends ErrorResponseException {

  public TooManyLogFollowersException(int limit, Duration retryAfter) {
    super(HttpStatus.TOO_MANY_REQUESTS, problem(limit), null);
    getHeaders().set(HttpHeaders.RETRY_AFTER, Long.toString(retryAfter.toSeconds()));
  }

  private static ProblemDetail problem(int limit) {
    ProblemDetail problem =
        ProblemDetail.forStatusAndDetail(
            HttpStatus.TOO_MANY_REQUESTS,
            "you already follow "
                + limit
                + " logs, as many as one caller may at once; end one of them or follow without"
                + " follow=true");
    problem.setTitle("Too many log followers");
    return problem;
  }
}
