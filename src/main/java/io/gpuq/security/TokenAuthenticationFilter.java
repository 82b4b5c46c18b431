package io.gpuq.security;

import io.gpuq.api.CallerAttribute;
import io.gpuq.api.ProblemResponses;
import io.gpuq.job.Caller;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletRequestWrapper;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.security.Principal;
import java.util.List;
import java.util.Optional;
import org.springframework.web.filter.OncePerRequestFilter;

/**
 * Every request needs a valid bearer token except the few public paths (probes, scrapers, API
 * documentation): deny by default, so a new endpoint is never open by accident.
 */
public final class TokenAuthenticationFilter extends OncePerRequestFilter {

  private static final String BEARER = "Bearer ";

  private final TokenRegistry tokens;
  private final List<String> publicPrefixes;
  private final boolean publicUi;

  public TokenAuthenticationFilter(TokenRegistry tokens, boolean publicActuator) {
    this(tokens, publicActuator, false);
  }

  /**
   * @param publicUi whether the web page's files ({@code GET /ui/...}) and the redirect of {@code
   *     /} to it need no token: they are the same for everyone and hold no data; the page then
   *     calls the API with the token its user gives it
   */
  public TokenAuthenticationFilter(TokenRegistry tokens, boolean publicActuator, boolean publicUi) {
    this.tokens = tokens;
    this.publicUi = publicUi;
    this.publicPrefixes =
        publicActuator
            ? List.of(
                "/actuator/health", "/actuator/prometheus", "/v3/api-docs", "/swagger-ui", "/error")
            : List.of("/v3/api-docs", "/swagger-ui", "/error");
  }

  @Override
  protected void doFilterInternal(
      HttpServletRequest request, HttpServletResponse response, FilterChain chain)
      throws ServletException, IOException {
    Optional<Caller> caller = tokens.authenticate(bearerToken(request));
    if (caller.isPresent()) {
      request.setAttribute(CallerAttribute.NAME, caller.get());
      chain.doFilter(new AuthenticatedRequest(request, caller.get()), response);
    } else if (isPublic(request.getRequestURI()) || isPublicUi(request)) {
      chain.doFilter(request, response);
    } else {
      boolean presented = request.getHeader("Authorization") != null;
      response.setHeader(
          "WWW-Authenticate",
          presented ? "Bearer error=\"invalid_token\"" : "Bearer realm=\"gpuq\"");
      ProblemResponses.write(
          request,
          response,
          HttpServletResponse.SC_UNAUTHORIZED,
          "Unauthorized",
          presented ? "the bearer token is not valid" : "send 'Authorization: Bearer <token>'");
    }
  }

  /**
   * Tells the servlet world who called: Actuator shows health details only to a principal in the
   * ADMIN role ({@code management.endpoint.health.roles}).
   */
  private static final class AuthenticatedRequest extends HttpServletRequestWrapper {

    private final Caller caller;

    AuthenticatedRequest(HttpServletRequest request, Caller caller) {
      super(request);
      this.caller = caller;
    }

    @Override
    public Principal getUserPrincipal() {
      return caller::name;
    }

    @Override
    public String getRemoteUser() {
      return caller.name();
    }

    @Override
    public boolean isUserInRole(String role) {
      return caller.role().name().equals(role);
    }
  }

  private boolean isPublic(String path) {
    return path.equals("/swagger-ui.html")
        || publicPrefixes.stream()
            .anyMatch(prefix -> path.equals(prefix) || path.startsWith(prefix + "/"));
  }

  /**
   * Judged on the servlet path, which Tomcat has decoded and normalised: {@code /ui/../api/...} is
   * the API, not the page.
   */
  private boolean isPublicUi(HttpServletRequest request) {
    if (!publicUi || !("GET".equals(request.getMethod()) || "HEAD".equals(request.getMethod()))) {
      return false;
    }
    String path =
        request.getServletPath() + (request.getPathInfo() == null ? "" : request.getPathInfo());
    return path.equals("/") || path.equals("/ui") || path.startsWith("/ui/");
  }

  private static String bearerToken(HttpServletRequest request) {
    String header = request.getHeader("Authorization");
    if (header == null || !header.regionMatches(true, 0, BEARER, 0, BEARER.length())) {
      return null;
    }
    return header.substring(BEARER.length()).trim();
  }
}
