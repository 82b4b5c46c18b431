package io.gpuq.api;

import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import org.springframework.http.HttpStatus;
import org.springframework.web.filter.OncePerRequestFilter;

/**
 * Actuator's errors as problems, as the API's. Its own 404 for an unknown health group has no body
 * at all, and for some health paths ({@code /actuator/health/a/..}, which Tomcat normalises to
 * {@code /actuator/health/}) Spring Boot 4.0.7 fails an assertion ("'contributor' must not be
 * null") that Spring MVC's exception handlers never see: a 500 and a stack trace in the log for a
 * mistyped URL. Both become a 404 problem here.
 */
public final class ActuatorProblemFilter extends OncePerRequestFilter {

  @Override
  protected void doFilterInternal(
      HttpServletRequest request, HttpServletResponse response, FilterChain chain)
      throws ServletException, IOException {
    try {
      chain.doFilter(request, response);
    } catch (ServletException e) {
      if (!request.getServletPath().startsWith("/actuator/health")
          || !(e.getCause() instanceof IllegalStateException)
          || response.isCommitted()) {
        throw e;
      }
      response.reset();
      ProblemResponses.write(
          request,
          response,
          HttpServletResponse.SC_NOT_FOUND,
          "Not Found",
          "no health group or component at this path");
      return;
    }
    int status = response.getStatus();
    if (status >= 400 && !response.isCommitted() && response.getContentType() == null) {
      HttpStatus known = HttpStatus.resolve(status);
      String title = known == null ? "Error" : known.getReasonPhrase();
      response.resetBuffer();
      ProblemResponses.write(
          request,
          response,
          status,
          title,
          status == 404 ? "no health group or component at this path" : title);
    }
  }
}
