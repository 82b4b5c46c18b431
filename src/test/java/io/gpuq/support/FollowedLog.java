package io.gpuq.support;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * A response read as it comes, line by line, by a thread of its own: tests wait (Awaitility) for
 * its headers, for a line, or for its end, without assuming how fast anything is. Closing it hangs
 * up, as a client that goes away does.
 */
public final class FollowedLog implements AutoCloseable {

  private final CompletableFuture<HttpResponse<InputStream>> response;
  private final List<String> lines = new CopyOnWriteArrayList<>();
  private volatile boolean ended;
  private volatile boolean closed;

  FollowedLog(CompletableFuture<HttpResponse<InputStream>> response) {
    this.response = response;
    response.thenAccept(
        r -> {
          Thread reader = new Thread(() -> read(r.body()), "test-log-reader");
          reader.setDaemon(true);
          reader.start();
        });
  }

  private void read(InputStream body) {
    try (BufferedReader reader =
        new BufferedReader(new InputStreamReader(body, StandardCharsets.UTF_8))) {
      String line;
      while ((line = reader.readLine()) != null) {
        lines.add(line);
      }
    } catch (IOException e) {
      // Hung up by close(), or the server went away: the end either way.
    }
    ended = true;
  }

  /** Whether the status line and headers have arrived. */
  public boolean hasHeaders() {
    return response.isDone() && !response.isCompletedExceptionally();
  }

  /** Waits at most {@code timeout} for the status line and headers; false if they did not come. */
  public boolean awaitHeaders(Duration timeout) {
    try {
      response.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
      return true;
    } catch (TimeoutException | ExecutionException e) {
      return false;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }

  public int status() {
    return response.join().statusCode();
  }

  public String contentType() {
    return header("Content-Type");
  }

  public String header(String name) {
    return response.join().headers().firstValue(name).orElse("");
  }

  /** The lines read so far. */
  public List<String> lines() {
    return List.copyOf(lines);
  }

  public String body() {
    return String.join("\n", lines);
  }

  /** Whether the server ended the response (or it was hung up). */
  public boolean ended() {
    return ended;
  }

  @Override
  public void close() {
    if (closed) {
      return;
    }
    closed = true;
    response.thenAccept(
        r -> {
          try {
            r.body().close();
          } catch (IOException e) {
            // Gone already.
          }
        });
    response.cancel(true);
  }
}
