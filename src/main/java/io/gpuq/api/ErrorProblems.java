package io.gpuq.api;

import io.gpuq.startup.OutOfMemoryExit;
import jakarta.servlet.RequestDispatcher;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import org.springframework.boot.webmvc.error.ErrorController;
import org.springframework.http.HttpStatus;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * Answers at {@code /error}, where the servlet container sends every error that no handler answered
 * (an exception past {@link ApiProblems}, an error from a filter or from Actuator), as a problem:
 * never Spring Boot's JSON or HTML page, and never a 500 for the path itself.
 */
@RestController
public class ErrorProblems implements ErrorController {

  @RequestMapping("/error")
  void error(HttpServletRequest request, HttpServletResponse response) throws IOException {
    if (request.getAttribute(RequestDispatcher.ERROR_EXCEPTION) instanceof Throwable thrown) {
      // A request that ran out of memory: gpuq stops rather than answer 500 and go on.
      OutOfMemoryExit.haltIfOutOfMemory(thrown);
    }
    Object code = request.getAttribute(RequestDispatcher.ERROR_STATUS_CODE);
    if (!(code instanceof Integer status)) {
      // Asked for directly, not as an error dispatch: there is nothing here.
      ProblemResponses.write(
          response, 404, "Not Found", "no such resource", request.getRequestURI());
      return;
    }
    if (response.isCommitted()) {
      return;
    }
    HttpStatus known = HttpStatus.resolve(status);
    String title = known == null ? "Error" : known.getReasonPhrase();
    String detail =
        status >= 500
            ? "gpuq failed to answer this request; its log says why"
            : "the request was refused: " + title;
    Object uri = request.getAttribute(RequestDispatcher.ERROR_REQUEST_URI);
    response.resetBuffer();
    ProblemResponses.write(
        response, status, title, detail, uri instanceof String path ? path : null);
  }
}
