package io.gpuq.api;

import java.io.IOException;
import java.io.Writer;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.catalina.connector.Request;
import org.apache.catalina.connector.Response;
import org.apache.catalina.valves.ErrorReportValve;
import org.apache.coyote.ActionCode;
import org.springframework.http.HttpStatus;

/**
 * Tomcat's own error answers as RFC 9457 problems instead of its HTML page: those for requests it
 * refuses before any application code runs, such as an encoded '/' or NUL in the path ({@code
 * /api/v1/jobs/%2f}) or a malformed request line. Each carries the web page's security headers
 * ({@link UiHeaders}).
 */
public class ProblemErrorReportValve extends ErrorReportValve {

  @Override
  protected void report(Request request, Response response, Throwable throwable) {
    int status = response.getStatus();
    // As Tomcat's own valves: nothing for a success, for an answer already written, or for an
    // error already reported.
    if (status < 400 || response.getContentWritten() > 0 || !response.setErrorReported()) {
      return;
    }
    AtomicBoolean ioAllowed = new AtomicBoolean(false);
    response.getCoyoteResponse().action(ActionCode.IS_IO_ALLOWED, ioAllowed);
    if (!ioAllowed.get()) {
      return;
    }
    HttpStatus known = HttpStatus.resolve(status);
    String title = known == null ? "Error" : known.getReasonPhrase();
    String detail =
        status == 400
            ? "the request was refused before gpuq read it: its path or request line is malformed"
                + " (for example an encoded '/' or NUL in the path)"
            : title;
    try {
      // Whatever the path: one Tomcat refused may not parse, and one under /ui/ must carry the
      // page's headers (issue 34). They cost a problem elsewhere nothing.
      UiHeaders.setOn(response);
      response.setContentType("application/problem+json");
      response.setCharacterEncoding("UTF-8");
      Writer writer = response.getReporter();
      if (writer != null) {
        // No instance: a path Tomcat refused may be anything.
        writer.write(ProblemResponses.json(status, title, detail, null));
        response.finishResponse();
      }
    } catch (IOException | IllegalStateException e) {
      // The client is gone or the answer has begun: nothing more to say.
    }
  }
}
