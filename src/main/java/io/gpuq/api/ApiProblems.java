package io.gpuq.api;

import io.gpuq.fs.InsufficientStorageException;
import io.gpuq.fs.NotARegularFileException;
import io.gpuq.job.AdminOnlyException;
import io.gpuq.job.FieldError;
import io.gpuq.job.IdempotencyKeyReusedException;
import io.gpuq.job.InvalidJobRequestException;
import io.gpuq.job.JobAccessDeniedException;
import io.gpuq.job.JobConflictException;
import io.gpuq.job.JobNotFoundException;
import io.gpuq.job.LimitExceededException;
import io.gpuq.job.StoreTimeoutException;
import io.gpuq.job.TooManyQueuedJobsException;
import io.gpuq.job.UnsatisfiableRequestException;
import io.gpuq.sweep.SweepAccessDeniedException;
import io.gpuq.sweep.SweepConflictException;
import io.gpuq.sweep.SweepKeyReusedException;
import io.gpuq.sweep.SweepNotFoundException;
import io.gpuq.sweep.SweepTooLargeException;
import io.gpuq.sweep.TooManyUnfinishedSweepsException;
import io.gpuq.text.UserText;
import java.util.ArrayDeque;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import org.springframework.dao.DataAccessException;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.HttpStatusCode;
import org.springframework.http.ProblemDetail;
import org.springframework.http.ResponseEntity;
import org.springframework.http.converter.HttpMessageNotReadableException;
import org.springframework.transaction.TransactionException;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.RestControllerAdvice;
import org.springframework.web.context.request.WebRequest;
import org.springframework.web.method.annotation.MethodArgumentTypeMismatchException;
import org.springframework.web.servlet.mvc.method.annotation.ResponseEntityExceptionHandler;
import tools.jackson.core.JacksonException;
import tools.jackson.core.JsonParser;
import tools.jackson.core.JsonToken;
import tools.jackson.core.TokenStreamContext;
import tools.jackson.core.exc.InputCoercionException;
import tools.jackson.core.exc.StreamReadException;
import tools.jackson.databind.exc.InvalidFormatException;
import tools.jackson.databind.exc.MismatchedInputException;
import tools.jackson.databind.exc.UnrecognizedPropertyException;

/**
 * Every error the API answers is an RFC 9457 problem ({@code application/problem+json}); bad input
 * names its field in {@code errors}. A message quotes at most {@value UserText#MAX_ECHO} characters
 * of what the user sent.
 */
@RestControllerAdvice
public class ApiProblems extends ResponseEntityExceptionHandler {

  /** The status and title an error class is answered with. */
  private record Titled(HttpStatus status, String title) {}

  /**
   * The errors answered with a fixed status and title, each class with its own: those {@link
   * #plain} answers, and the limits {@link #pastLimit} answers.
   */
  private static final Map<Class<? extends RuntimeException>, Titled> TITLES =
      Map.of(
          JobNotFoundException.class, new Titled(HttpStatus.NOT_FOUND, "Job not found"),
          JobAccessDeniedException.class, new Titled(HttpStatus.FORBIDDEN, "Not your job"),
          JobConflictException.class,
              new Titled(HttpStatus.CONFLICT, "Conflict with the job's state"),
          SweepNotFoundException.class, new Titled(HttpStatus.NOT_FOUND, "Sweep not found"),
          SweepAccessDeniedException.class, new Titled(HttpStatus.FORBIDDEN, "Not your sweep"),
          SweepConflictException.class,
              new Titled(HttpStatus.CONFLICT, "Conflict with the sweep's state"),
          InsufficientStorageException.class,
              new Titled(HttpStatus.INSUFFICIENT_STORAGE, "Insufficient Storage"),
          SweepTooLargeException.class,
              new Titled(HttpStatus.CONTENT_TOO_LARGE, "Sweep larger than a sweep may be"),
          // 429 without Retry-After: a sweep finishes when its trials do, which nobody can
          // foretell.
          TooManyUnfinishedSweepsException.class,
              new Titled(HttpStatus.TOO_MANY_REQUESTS, "Too many unfinished sweeps"),
          // 429 without Retry-After too: queued jobs leave the queue as places free.
          TooManyQueuedJobsException.class,
              new Titled(HttpStatus.TOO_MANY_REQUESTS, "Too many queued jobs"));

  /** The plain errors in {@link #TITLES}: their status and title, their message as the detail. */
  @ExceptionHandler({
    JobNotFoundException.class,
    JobAccessDeniedException.class,
    JobConflictException.class,
    SweepNotFoundException.class,
    SweepAccessDeniedException.class,
    SweepConflictException.class,
    InsufficientStorageException.class
  })
  ProblemDetail plain(RuntimeException e) {
    Titled titled = titles(e);
    return titled(titled.status(), titled.title(), e.getMessage());
  }

  /** An admin's operation asked by a submitter. */
  @ExceptionHandler(AdminOnlyException.class)
  ProblemDetail adminOnly(AdminOnlyException e) {
    return titled(HttpStatus.FORBIDDEN, "Admins only", e.getMessage());
  }

  /** A request past a limit: its status and title, and the limit's figures as properties. */
  @ExceptionHandler(LimitExceededException.class)
  ProblemDetail pastLimit(LimitExceededException e) {
    Titled titled = titles(e);
    ProblemDetail problem = titled(titled.status(), titled.title(), e.getMessage());
    for (LimitExceededException.Figure figure : e.figures()) {
      problem.setProperty(figure.name(), figure.value());
    }
    return problem;
  }

  /**
   * An error's status and title in {@link #TITLES}: a subclass's are its nearest listed class's.
   */
  private static Titled titles(RuntimeException e) {
    Titled titled = null;
    for (Class<?> c = e.getClass(); titled == null; c = c.getSuperclass()) {
      titled = TITLES.get(c);
    }
    return titled;
  }

  @ExceptionHandler(InvalidJobRequestException.class)
  ProblemDetail invalid(InvalidJobRequestException e) {
    return withErrors(HttpStatus.BAD_REQUEST, "Invalid request", e.getMessage(), e.errors());
  }

  @ExceptionHandler(UnsatisfiableRequestException.class)
  ProblemDetail unsatisfiable(UnsatisfiableRequestException e) {
    return withErrors(
        HttpStatus.UNPROCESSABLE_CONTENT,
        "Request can never fit on this node",
        e.getMessage(),
        List.of(new FieldError(e.field(), e.getMessage())));
  }

  @ExceptionHandler(IdempotencyKeyReusedException.class)
  ProblemDetail idempotencyKeyReused(IdempotencyKeyReusedException e) {
    return keyReused(e.getMessage(), "jobId", e.jobId());
  }

  @ExceptionHandler(SweepKeyReusedException.class)
  ProblemDetail sweepKeyReused(SweepKeyReusedException e) {
    return keyReused(e.getMessage(), "sweepId", e.sweepId());
  }

  @ExceptionHandler(NotARegularFileException.class)
  ProblemDetail logNotAFile(NotARegularFileException e) {
    return titled(
        HttpStatus.CONFLICT,
        "Log not readable",
        "the job's log was replaced by " + e.kind() + ", which gpuq does not read");
  }

  /**
   * A read the database cancelled at gpuq.api.query-timeout. 503, not 500: the request was fine and
   * the same one may well succeed once the database is less loaded.
   */
  @ExceptionHandler(StoreTimeoutException.class)
  ResponseEntity<ProblemDetail> queryTimedOut(StoreTimeoutException e) {
    return ResponseEntity.status(HttpStatus.SERVICE_UNAVAILABLE)
        .header("Retry-After", "5")
        .body(
            titled(
                HttpStatus.SERVICE_UNAVAILABLE,
                "Query timed out",
                "the database did not answer within gpuq.api.query-timeout; try again, or narrow"
                    + " the listing with state, label or a smaller limit"));
  }

  /**
   * A database that could not serve the request just then (issue 34): H2 closed by a write that
   * failed on a full disk, which the pool is reopening, or a lock given up on. 503, not 500: the
   * same request may well succeed in a moment. Any other database error is left as it was: a 500.
   */
  @ExceptionHandler({DataAccessException.class, TransactionException.class})
  ResponseEntity<ProblemDetail> databaseUnavailable(RuntimeException e) {
    if (!DatabaseUnavailable.is(e)) {
      throw e;
    }
    return ResponseEntity.status(HttpStatus.SERVICE_UNAVAILABLE)
        .header("Retry-After", "5")
        .body(
            titled(
                HttpStatus.SERVICE_UNAVAILABLE,
                "Database unavailable",
                "the database could not serve this request just now (its disk is full, or it is"
                    + " busy): try again in a moment"));
  }

  @ExceptionHandler(MethodArgumentTypeMismatchException.class)
  ProblemDetail typeMismatch(MethodArgumentTypeMismatchException e) {
    String message = "\"" + UserText.echo(String.valueOf(e.getValue())) + "\" is not a valid value";
    return withErrors(
        HttpStatus.BAD_REQUEST,
        "Invalid request",
        e.getName() + ": " + message,
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
      problem = fieldProblem(path(unknown), "unknown field");
    } else if (json instanceof MismatchedInputException mismatch && !json.getPath().isEmpty()) {
      problem = fieldProblem(path(mismatch), wrongType(mismatch));
    } else if (json instanceof InputCoercionException && !json.getPath().isEmpty()) {
      problem = fieldProblem(path(json), "is out of range: " + bounded(json.getOriginalMessage()));
    } else if (json instanceof StreamReadException read) {
      // Syntax, and keys given twice: named by where the parser stood.
      String detail = "the request body is not valid JSON: " + bounded(read.getOriginalMessage());
      problem =
          withErrors(
              HttpStatus.BAD_REQUEST,
              "Malformed JSON",
              detail,
              List.of(new FieldError(parserPath(read.processor()), detail)));
    } else if (json != null && !json.getPath().isEmpty()) {
      problem =
          fieldProblem(
              path(json),
              "has the wrong type or form (" + bounded(json.getOriginalMessage()) + ")");
    } else {
      String detail =
          json == null
              ? "the request body is missing or not JSON"
              : "the request body is not valid JSON: " + bounded(json.getOriginalMessage());
      problem =
          withErrors(
              HttpStatus.BAD_REQUEST,
              "Malformed JSON",
              detail,
              List.of(new FieldError("", detail)));
    }
    return ResponseEntity.badRequest().body(problem);
  }

  private static ProblemDetail fieldProblem(String field, String message) {
    return withErrors(
        HttpStatus.BAD_REQUEST,
        "Invalid request",
        field + ": " + message,
        List.of(new FieldError(field, message)));
  }

  /** "must be an integer, not 1.5": the JSON type the API documents, and what came instead. */
  private static String wrongType(MismatchedInputException e) {
    String expected = jsonType(e.getTargetType());
    String message = expected == null ? "has the wrong type" : "must be " + expected;
    if (e instanceof InvalidFormatException format && format.getValue() != null) {
      Object value = format.getValue();
      return message
          + ", not "
          + (value instanceof String text
              ? "the string \"" + UserText.echo(text) + "\""
              : UserText.echo(String.valueOf(value)));
    }
    String actual = tokenType(e.getCurrentToken());
    return actual == null ? message : message + ", not " + actual;
  }

  private static String jsonType(Class<?> type) {
    if (type == null) {
      return null;
    }
    if (type == Integer.class || type == int.class || type == Long.class || type == long.class) {
      return "an integer";
    }
    if (Number.class.isAssignableFrom(type) || type == double.class || type == float.class) {
      return "a number";
    }
    if (type == String.class) {
      return "a string";
    }
    if (type == Boolean.class || type == boolean.class) {
      return "true or false";
    }
    if (Collection.class.isAssignableFrom(type) || type.isArray()) {
      return "an array";
    }
    if (Map.class.isAssignableFrom(type) || type.isRecord()) {
      return "an object";
    }
    return null;
  }

  private static String tokenType(JsonToken token) {
    if (token == null) {
      return null;
    }
    return switch (token) {
      case START_OBJECT -> "an object";
      case START_ARRAY -> "an array";
      case VALUE_STRING -> "a string";
      case VALUE_NUMBER_INT -> "an integer";
      case VALUE_NUMBER_FLOAT -> "a fractional number";
      case VALUE_TRUE, VALUE_FALSE -> "a boolean";
      default -> null;
    };
  }

  /** Jackson's messages quote input (bounded by Jackson); this bounds them again. */
  private static String bounded(String message) {
    if (message == null) {
      return "";
    }
    return message.length() <= 300 ? message : message.substring(0, 300) + "…";
  }

  private static String path(JacksonException e) {
    StringBuilder path = new StringBuilder();
    for (JacksonException.Reference ref : e.getPath()) {
      if (ref.getPropertyName() != null) {
        if (!path.isEmpty()) {
          path.append('.');
        }
        path.append(UserText.echo(ref.getPropertyName()));
      } else if (ref.getIndex() >= 0) {
        path.append('[').append(ref.getIndex()).append(']');
      }
    }
    return path.toString();
  }

  /** Where a parser stood when it failed, in the form of {@link #path}: "labels.team". */
  private static String parserPath(JsonParser parser) {
    if (parser == null) {
      return "";
    }
    ArrayDeque<String> parts = new ArrayDeque<>();
    for (TokenStreamContext c = parser.streamReadContext(); c != null; c = c.getParent()) {
      if (c.inObject() && c.currentName() != null) {
        parts.addFirst("." + UserText.echo(c.currentName()));
      } else if (c.inArray() && c.getCurrentIndex() >= 0) {
        parts.addFirst("[" + c.getCurrentIndex() + "]");
      }
    }
    String path = String.join("", parts);
    return path.startsWith(".") ? path.substring(1) : path;
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

  /**
   * 422 for an Idempotency-Key used before with a different request, jobs' and sweeps' alike;
   * {@code idProperty} names what the first request created.
   */
  private static ProblemDetail keyReused(String message, String idProperty, String id) {
    ProblemDetail problem =
        withErrors(
            HttpStatus.UNPROCESSABLE_CONTENT,
            "Idempotency-Key reused with a different request",
            message,
            List.of(new FieldError("Idempotency-Key", message)));
    problem.setProperty(idProperty, id);
    return problem;
  }

  private static ProblemDetail withErrors(
      HttpStatus status, String title, String detail, List<FieldError> errors) {
    ProblemDetail problem = titled(status, title, detail);
    problem.setProperty(
        "errors",
        errors.stream().map(e -> Map.of("field", e.field(), "message", e.message())).toList());
    return problem;
  }
}
