package io.gpuq.api;

import jakarta.servlet.FilterChain;
import jakarta.servlet.ReadListener;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletInputStream;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletRequestWrapper;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import org.springframework.web.filter.OncePerRequestFilter;

/**
 * Refuses request bodies over the configured size: at once when the declared length is too large,
 * and while reading when a chunked body grows past it.
 */
public final class RequestSizeLimitFilter extends OncePerRequestFilter {

  private final long maxBytes;

  public RequestSizeLimitFilter(long maxBytes) {
    this.maxBytes = maxBytes;
  }

  @Override
  protected void doFilterInternal(
      HttpServletRequest request, HttpServletResponse response, FilterChain chain)
      throws ServletException, IOException {
    if (request.getContentLengthLong() > maxBytes) {
      ProblemResponses.write(
          request,
          response,
          HttpServletResponse.SC_REQUEST_ENTITY_TOO_LARGE,
          "Content Too Large",
          "the request body is larger than " + maxBytes + " bytes");
      return;
    }
    chain.doFilter(new Limited(request, maxBytes), response);
  }

  private static final class Limited extends HttpServletRequestWrapper {
    private final long maxBytes;
    private ServletInputStream stream;

    Limited(HttpServletRequest request, long maxBytes) {
      super(request);
      this.maxBytes = maxBytes;
    }

    @Override
    public ServletInputStream getInputStream() throws IOException {
      if (stream == null) {
        stream = new CountingStream(super.getInputStream(), maxBytes);
      }
      return stream;
    }
  }

  private static final class CountingStream extends ServletInputStream {
    private final ServletInputStream in;
    private final long maxBytes;
    private long read;

    CountingStream(ServletInputStream in, long maxBytes) {
      this.in = in;
      this.maxBytes = maxBytes;
    }

    @Override
    public int read() throws IOException {
      int b = in.read();
      if (b >= 0) {
        count(1);
      }
      return b;
    }

    @Override
    public int read(byte[] buffer, int off, int len) throws IOException {
      int n = in.read(buffer, off, len);
      if (n > 0) {
        count(n);
      }
      return n;
    }

    private void count(int n) throws PayloadTooLargeException {
      read += n;
      if (read > maxBytes) {
        throw new PayloadTooLargeException(maxBytes);
      }
    }

    @Override
    public boolean isFinished() {
      return in.isFinished();
    }

    @Override
    public boolean isReady() {
      return in.isReady();
    }

    @Override
    public void setReadListener(ReadListener listener) {
      in.setReadListener(listener);
    }
  }
}
