package io.gpuq.bench;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * The bench's HTTP client for gpuq. Submissions go through {@link SocketHttp} (one keep-alive
 * connection per thread, little CPU) or, with {@code client=jdk}, through the JDK's {@code
 * HttpClient}; everything else (polls, listings, logs) always through the JDK's client.
 */
final class BenchClient {

  /** How submissions are sent. */
  enum Submitter {
    SOCKET,
    JDK;

    static Submitter parse(String value) {
      return switch (value) {
        case "socket" -> SOCKET;
        case "jdk" -> JDK;
        default -> throw new IllegalArgumentException("client=socket|jdk, not " + value);
      };
    }
  }

  static final JsonMapper JSON = JsonMapper.builder().build();

  private final HttpClient http =
      HttpClient.newBuilder()
          .version(HttpClient.Version.HTTP_1_1)
          .connectTimeout(Duration.ofSeconds(5))
          .build();
  private final String base;
  private final SocketHttp socket;

  BenchClient(int port, Submitter submitter) {
    this.base = "http://127.0.0.1:" + port;
    this.socket =
        submitter == Submitter.SOCKET ? new SocketHttp("127.0.0.1", port, GpuqServer.TOKEN) : null;
  }

  /** One POST: what came back, and when it was sent and answered (wall clock and nanoTime). */
  record Posted(int status, String body, Instant sentAt, long sentNanos, long answeredNanos) {

    JsonNode json() {
      return JSON.readTree(body);
    }
  }

  Posted submit(String json) {
    if (socket != null) {
      Instant sentAt = Instant.now();
      long sent = System.nanoTime();
      SocketHttp.Response response = socket.postJson("/api/v1/jobs", json);
      return new Posted(response.status(), response.body(), sentAt, sent, System.nanoTime());
    }
    HttpRequest request =
        request("/api/v1/jobs")
            .header("Content-Type", "application/json")
            .POST(HttpRequest.BodyPublishers.ofString(json))
            .build();
    Instant sentAt = Instant.now();
    long sent = System.nanoTime();
    HttpResponse<String> response = send(request);
    return new Posted(response.statusCode(), response.body(), sentAt, sent, System.nanoTime());
  }

  JsonNode job(String id) {
    return JSON.readTree(getOk("/api/v1/jobs/" + id));
  }

  String logs(String id) {
    return getOk("/api/v1/jobs/" + id + "/logs");
  }

  /** One page of the jobs carrying {@code run=<run>}, optionally of one state. */
  JsonNode page(String run, String state, int limit, String cursor) {
    StringBuilder query =
        new StringBuilder("/api/v1/jobs?label=")
            .append(encode("run:" + run))
            .append("&limit=")
            .append(limit);
    if (state != null) {
      query.append("&state=").append(state);
    }
    if (cursor != null) {
      query.append("&cursor=").append(encode(cursor));
    }
    return JSON.readTree(getOk(query.toString()));
  }

  /**
   * Whether any job at all is in this state: a one-row query. Deliberately without the label
   * filter: with jobs queued and the scheduler committing, H2 runs the label subquery again for
   * every queued row, and one such request took minutes.
   */
  boolean any(String state) {
    return !JSON.readTree(getOk("/api/v1/jobs?limit=1&state=" + state)).get("items").isEmpty();
  }

  /** Every job of the run, page by page. */
  List<JsonNode> all(String run) {
    List<JsonNode> jobs = new ArrayList<>();
    String cursor = null;
    do {
      JsonNode page = page(run, null, 1000, cursor);
      page.get("items").forEach(jobs::add);
      JsonNode next = page.get("nextCursor");
      cursor = next == null || next.isNull() ? null : next.asString();
    } while (cursor != null);
    return jobs;
  }

  private String getOk(String path) {
    HttpResponse<String> response = send(request(path).GET().build());
    if (response.statusCode() != 200) {
      throw new IllegalStateException(
          "GET " + path + " answered " + response.statusCode() + ": " + response.body());
    }
    return response.body();
  }

  private HttpRequest.Builder request(String path) {
    return HttpRequest.newBuilder(URI.create(base + path))
        .timeout(Duration.ofSeconds(60))
        .header("Authorization", "Bearer " + GpuqServer.TOKEN);
  }

  private HttpResponse<String> send(HttpRequest request) {
    try {
      return http.send(request, HttpResponse.BodyHandlers.ofString());
    } catch (IOException e) {
      throw new UncheckedIOException(request.method() + " " + request.uri() + " failed", e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  private static String encode(String s) {
    return URLEncoder.encode(s, StandardCharsets.UTF_8);
  }
}
