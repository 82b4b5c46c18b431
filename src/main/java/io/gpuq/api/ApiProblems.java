package io.gpuq.api;

import io.gpuq.fs.InsufficientStorageException;
import io.gpuq.fs.NotARegularFileException;
import io.gpuq.job.FieldError;
import io.gpuq.job.InvalidJobRequestException;
import io.gpuq.job.JobAccessDeniedException;
import io.gpuq.job.JobConflictException;
import io.gpuq.job.JobNotFoundException;
import java.util.List;
import java.util.Map;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.HttpStatusCode;
import org.springframework.http.ProblemDetail;
import org.springframework.http.ResponseEntity;
import org.springframework.http.converter.HttpMessageNotReadableException;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.RestControllerAdvice;
import org.springframework.web.context.request.WebRequest;
import org.springframework.web.method.annotation.MethodArgumentTypeMismatchException;
import org.springframework.web.servlet.mvc.method.annotation.ResponseEntityExceptionHandler;
import tools.jackson.core.JacksonException;
import tools.jackson.core.exc.StreamReadException;
import tools.jackson.databind.exc.UnrecognizedPropertyException;

/**
 * Every error the API answers is an RFC 9457 problem ({@code application/problem+json}); bad input
 * names its field in {@code errors}.
 */
@RestControllerAdvice
public class ApiProblems extends ResponseEntityExceptionHandler {

  @ExceptionHandler(InvalidJobRequestException.class)
  ProblemDetail invalid(InvalidJobRequestException e) {
    return withErrors(
        ProblemDetail.forStatusAndDetail(HttpStatus.BAD_REQUEST, e.getMessage()),
        "Invalid request",
        e.errors());
  }

  @ExceptionHandler(UnsatisfiableRequestException.class)
  ProblemDetail unsatisfiable(UnsatisfiableRequestException e) {
    return withErrors(
        ProblemDetail.forStatusAndDetail(HttpStatus.UNPROCESSABLE_CONTENT, e.getMessage()),
        "Request can never fit on this node",
        List.of(new FieldError(e.field(), e.getMessage())));
  }

  @ExceptionHandler(NotARegularFileException.class)
  ProblemDetail logNotAFile(NotARegularFileException e) {
    return titled(
        HttpStatus.CONFLICT,
        "Log not readable",
        "the job's log was replaced by " + e.kind() + ", which gpuq does not read");
  }

  @ExceptionHandler(InsufficientStorageException.class)
  ProblemDetail insufficientStorage(InsufficientStorageException e) {
    return titled(HttpStatus.INSUFFICIENT_STORAGE, "Insufficient Storage", e.getMessage());
  }

  @ExceptionHandler(JobNotFoundException.class)
  ProblemDetail notFound(JobNotFoundException e) {
    return titled(HttpStatus.NOT_FOUND, "Job not found", e.getMessage());
  }

  @ExceptionHandler(JobAccessDeniedException.class)
  ProblemDetail forbidden(JobAccessDeniedException e) {
    return titled(HttpStatus.FORBIDDEN, "Not your job", e.getMessage());
  }

  @ExceptionHandler(JobConflictException.class)
  ProblemDetail conflict(JobConflictException e) {
    return titled(HttpStatus.CONFLICT, "Conflict with the job's state", e.getMessage());
  }

  @ExceptionHandler(MethodArgumentTypeMismatchException.class)
  ProblemDetail typeMismatch(MethodArgumentTypeMismatchException e) {
    String message = "\"" + e.getValue() + "\" is not a valid value";
    return withErrors(
        ProblemDetail.forStatusAndDetail(HttpStatus.BAD_REQUEST, e.getName() + ": " + message),
        "Invalid request",
        List.of(new FieldError(e.getName(), message)));
  }

  @Override
  protected ResponseEntity<Object> handleHttpMessageNotReadable(
      HttpMessageNotReadableException e,
      HttpHeaders headers,
      HttpStatusCode status,
      WebRequest request) {
    if (causedBy(e, PayloadTooLargeException.class) != null) {
      ProblemDetail problem =
          titled(
              HttpStatus.CONTENT_TOO_LARGE,
              "Content Too Large",
              causedBy(e, PayloadTooLargeException.class).getMessage());
      return ResponseEntity.status(HttpStatus.CONTENT_TOO_LARGE).body(problem);
    }
    JacksonException json = causedBy(e, JacksonException.class);
    ProblemDetail problem;
    if (json instanceof UnrecognizedPropertyException unknown) {
      String field = path(unknown);
      problem =
          withErrors(
              ProblemDetail.forStatusAndDetail(HttpStatus.BAD_REQUEST, field + ": unknown field"),
              "Invalid request",
              List.of(new FieldError(field, "unknown field")));
    } else if (json != null
        && !(json instanceof StreamReadException)
        && !json.getPath().isEmpty()) {
      String field = path(json);
      String message = "has the wrong type or form (" + json.getOriginalMessage() + ")";
      problem =
          withErrors(
              ProblemDetail.forStatusAndDetail(HttpStatus.BAD_REQUEST, field + ": " + message),
              "Invalid request",
              List.of(new FieldError(field, message)));
    } else {
      String detail =
          json == null
              ? "the request body is missing or not JSON"
              : "the request body is not valid JSON: " + json.getOriginalMessage();
      problem =
          withErrors(
              ProblemDetail.forStatusAndDetail(HttpStatus.BAD_REQUEST, detail),
              "Malformed JSON",
              List.of(new FieldError("", detail)));
    }
    return ResponseEntity.badRequest().body(problem);
  }

  private static String path(JacksonException e) {
    StringBuilder path = new StringBuilder();
    for (JacksonException.Reference ref : e.getPath()) {
      if (ref.getPropertyName() != null) {
        if (!path.isEmpty()) {
          path.append('.');
        }
        path.append(ref.getPropertyName());
      } else if (ref.getIndex() >= 0) {
        path.append('[').append(ref.getIndex()).append(']');
      }
    }
    return path.toString();
  }

  private static <T extends Throwable> T causedBy(Throwable e, Class<T> type) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (type.isInstance(t)) {
        return type.cast(t);
      }
    }
    return null;
  }

  private static ProblemDetail titled(HttpStatus status, String title, String detail) {
    ProblemDetail problem = ProblemDetail.forStatusAndDetail(status, detail);
    problem.setTitle(title);
    return problem;
  }

  private static ProblemDetail withErrors(
      ProblemDetail problem, String title, List<FieldError> errors) {
    problem.setTitle(title);
    problem.setProperty(
        "errors",
        errors.stream().map(e -> Map.of("field", e.field(), "message", e.message())).toList());
    return problem;
  }
}
