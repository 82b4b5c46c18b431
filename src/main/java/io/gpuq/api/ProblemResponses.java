package io.gpuq.api;

import io.gpuq.text.UserText;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.util.LinkedHashMap;
import java.util.Map;
import tools.jackson.databind.json.JsonMapper;

/**
 * Writes an RFC 9457 problem from a servlet filter, where Spring MVC's own problem handling ({@link
 * ApiProblems}) cannot reach: the same fields, the same media type.
 */
public final class ProblemResponses {

  private static final JsonMapper JSON = JsonMapper.builder().build();

  private ProblemResponses() {}

  public static void write(
      HttpServletRequest request,
      HttpServletResponse response,
      int status,
      String title,
      String detail)
      throws IOException {
    write(response, status, title, detail, request.getRequestURI());
  }

  /**
   * @param instance the path the problem is about, or null to leave it out
   */
  public static void write(
      HttpServletResponse response, int status, String title, String detail, String instance)
      throws IOException {
    response.setStatus(status);
    response.setContentType("application/problem+json");
    response.setCharacterEncoding("UTF-8");
    response.getWriter().write(json(status, title, detail, instance));
  }

  static String json(int status, String title, String detail, String instance) {
    Map<String, Object> problem = new LinkedHashMap<>();
    problem.put("type", "about:blank");
    problem.put("title", title);
    problem.put("status", status);
    problem.put("detail", detail);
    if (instance != null) {
      problem.put("instance", UserText.echo(instance));
    }
    return JSON.writeValueAsString(problem);
  }
}
