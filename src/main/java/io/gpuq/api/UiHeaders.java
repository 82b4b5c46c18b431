package io.gpuq.api;

import jakarta.servlet.DispatcherType;
import jakarta.servlet.FilterChain;
import jakarta.servlet.RequestDispatcher;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.util.HexFormat;
import org.springframework.web.filter.OncePerRequestFilter;

/**
 * The web page's security headers, on every answer under {@code /ui/} (and the redirect of {@code
 * /}), errors included. The page's own code never needs inline script or style, so the policy
 * allows only files from gpuq itself: text a job wrote that reached the page as HTML by mistake
 * still could not run.
 *
 * <p>"Under {@code /ui/}" is judged on the path as sent as well as on the one Tomcat normalised:
 * {@code /ui/%2e%2e/api/v1/jobs} is {@code /api/v1/jobs} to the servlet, but a browser that
 * followed such a link shows the answer as the page's (issue 34). This filter runs first of all, so
 * that the answers of every filter after it carry the headers too; the answers Tomcat gives before
 * any filter carry them from {@link ProblemErrorReportValve}.
 */
public final class UiHeaders extends OncePerRequestFilter {

  public static final String CONTENT_SECURITY_POLICY =
      "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self';"
          + " connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'none';"
          + " frame-ancestors 'none'";

  @Override
  protected boolean shouldNotFilter(HttpServletRequest request) {
    if (request.getDispatcherType() == DispatcherType.ERROR) {
      // The error's own path is /error: the path the request was sent to is this attribute.
      return !(request.getAttribute(RequestDispatcher.ERROR_REQUEST_URI) instanceof String sent
          && isUiPath(sent));
    }
    String path =
        request.getServletPath() + (request.getPathInfo() == null ? "" : request.getPathInfo());
    return !(isUiPath(path) || isUiPath(request.getRequestURI()));
  }

  /** Also on the error dispatch, where requests refused before any filter ran are answered. */
  @Override
  protected boolean shouldNotFilterErrorDispatch() {
    return false;
  }

  @Override
  protected void doFilterInternal(
      HttpServletRequest request, HttpServletResponse response, FilterChain chain)
      throws ServletException, IOException {
    setOn(response);
    chain.doFilter(request, response);
  }

  /** Sets the page's security headers on an answer. */
  public static void setOn(HttpServletResponse response) {
    response.setHeader("Content-Security-Policy", CONTENT_SECURITY_POLICY);
    response.setHeader("X-Content-Type-Options", "nosniff");
    response.setHeader("Referrer-Policy", "no-referrer");
    response.setHeader("X-Frame-Options", "DENY");
  }

  /**
   * Whether a path, as sent or as normalised, is the page's: {@code /}, or {@code /ui} followed by
   * nothing or by anything but a letter of a longer name ({@code /ui/...}, {@code /ui;...}, {@code
   * /ui%2f...}). Repeated slashes count as one and encoded letters as the letters ({@code
   * //%75i/}), as Tomcat reads them.
   */
  static boolean isUiPath(String path) {
    if (path == null) {
      return false;
    }
    String plain = decodeUnreserved(path).replaceAll("/{2,}", "/");
    if (plain.equals("/")) {
      return true;
    }
    if (!plain.startsWith("/ui")) {
      return false;
    }
    return plain.length() == 3 || !isNameCharacter(plain.charAt(3));
  }

  private static boolean isNameCharacter(char c) {
    return (c >= 'a' && c <= 'z')
        || (c >= 'A' && c <= 'Z')
        || (c >= '0' && c <= '9')
        || c == '-'
        || c == '_'
        || c == '.'
        || c == '~';
  }

  /** The path with each percent-encoded letter, digit, '-', '_', '.' or '~' decoded. */
  private static String decodeUnreserved(String path) {
    if (path.indexOf('%') < 0) {
      return path;
    }
    StringBuilder out = new StringBuilder(path.length());
    for (int i = 0; i < path.length(); i++) {
      char c = path.charAt(i);
      if (c == '%'
          && i + 2 < path.length()
          && HexFormat.isHexDigit(path.charAt(i + 1))
          && HexFormat.isHexDigit(path.charAt(i + 2))) {
        int value = HexFormat.fromHexDigits(path, i + 1, i + 3);
        if (isNameCharacter((char) value)) {
          out.append((char) value);
          i += 2;
          continue;
        }
      }
      out.append(c);
    }
    return out.toString();
  }
}
