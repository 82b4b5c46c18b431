package io.gpuq.api;

import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.util.Locale;
import org.springframework.web.filter.OncePerRequestFilter;

/**
 * Answers a path with a {@code .} or {@code ..} segment ({@code /actuator/health/../../x}, also
 * encoded as {@code %2e}) with a 404 problem before anything else reads it.
 *
 * <p>Why: Tomcat normalises such a path for the servlet path, which the filters map and authorise
 * by, but Spring MVC matches the request URI as sent. The two disagreed: {@code
 * /actuator/health/../../x} passed the filters as {@code /x} and reached Actuator's health endpoint
 * as a component named {@code ..}, which answered an empty 404 (anonymous) or failed with a 500
 * (admin). gpuq has no path with such a segment, so none is answered as if it had one.
 */
public final class DotSegmentFilter extends OncePerRequestFilter {

  @Override
  protected void doFilterInternal(
      HttpServletRequest request, HttpServletResponse response, FilterChain chain)
      throws ServletException, IOException {
    if (hasDotSegment(request.getRequestURI())) {
      ProblemResponses.write(
          request,
          response,
          HttpServletResponse.SC_NOT_FOUND,
          "Not Found",
          "no such resource: gpuq's paths have no '.' or '..' segments");
      return;
    }
    chain.doFilter(request, response);
  }

  /** Whether {@code uri}, as sent (percent-encoded, path parameters and all), has a dot segment. */
  static boolean hasDotSegment(String uri) {
    if (uri == null) {
      return false;
    }
    for (String segment : uri.split("/", -1)) {
      int parameters = segment.indexOf(';');
      String name = (parameters < 0 ? segment : segment.substring(0, parameters));
      name = name.toLowerCase(Locale.ROOT).replace("%2e", ".");
      if (name.equals(".") || name.equals("..")) {
        return true;
      }
    }
    return false;
  }
}
