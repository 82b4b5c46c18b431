package io.gpuq.support;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/** A real HTTP client for gpuq's API, as curl or a notebook would use it. */
public final class HttpApi {

  public static final JsonMapper JSON = JsonMapper.builder().build();

  private final HttpClient client =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
  private final String base;
  private final String token;

  public HttpApi(int port, String token) {
    this("http://127.0.0.1:" + port, token);
  }

  private HttpApi(String base, String token) {
    this.base = base;
    this.token = token;
  }

  /** The same server, as another caller (null: no token at all). */
  public HttpApi as(String otherToken) {
    return new HttpApi(base, otherToken);
  }

  public Response get(String path) {
    return send(request(path).GET());
  }

  /** A GET with extra headers, given as name, value, name, value... */
  public Response getWith(String path, String... headers) {
    HttpRequest.Builder builder = request(path).GET();
    for (int i = 0; i < headers.length; i += 2) {
      builder.header(headers[i], headers[i + 1]);
    }
    return send(builder);
  }

  public Response post(String path, String json, String... headers) {
    HttpRequest.Builder builder =
        request(path)
            .header("Content-Type", "application/json")
            .POST(HttpRequest.BodyPublishers.ofString(json));
    for (int i = 0; i < headers.length; i += 2) {
      builder.header(headers[i], headers[i + 1]);
    }
    return send(builder);
  }

  public Response delete(String path) {
    return send(request(path).DELETE());
  }

  public Response post(String path) {
    return send(request(path).POST(HttpRequest.BodyPublishers.noBody()));
  }

  /** Submits and returns the new job's id, failing unless gpuq answered 201. */
  public String submit(String json) {
    Response response = post("/api/v1/jobs", json);
    if (response.status() != 201) {
      throw new AssertionError("submit answered " + response.status() + ": " + response.body());
    }
    return response.json().get("id").asString();
  }

  public JsonNode job(String id) {
    Response response = get("/api/v1/jobs/" + id);
    if (response.status() != 200) {
      throw new AssertionError("get answered " + response.status() + ": " + response.body());
    }
    return response.json();
  }

  public String state(String id) {
    return job(id).get("state").asString();
  }

  /**
   * GETs {@code path} but reads at most {@code maxBodyBytes} of the body, then hangs up: for
   * answers that could be endless (a log that might be {@code /dev/zero}).
   */
  public Response getBounded(String path, int maxBodyBytes) {
    try {
      HttpResponse<InputStream> response =
          client.send(request(path).GET().build(), HttpResponse.BodyHandlers.ofInputStream());
      try (InputStream body = response.body()) {
        byte[] head = body.readNBytes(maxBodyBytes);
        return new Response(
            response.statusCode(),
            response.headers(),
            new String(head, java.nio.charset.StandardCharsets.UTF_8));
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  /**
   * Starts a GET whose answer is read as it comes ({@code logs?follow=true}); the returned log
   * fills in the background until the server ends it or the test closes it.
   */
  public FollowedLog follow(String path) {
    // No timeout: a follow lasts as long as the job; tests bound their waits themselves.
    HttpRequest.Builder builder = HttpRequest.newBuilder(URI.create(base + path)).GET();
    if (token != null) {
      builder.header("Authorization", "Bearer " + token);
    }
    return new FollowedLog(
        client.sendAsync(builder.build(), HttpResponse.BodyHandlers.ofInputStream()));
  }

  /** Reads a streamed response line by line while it is still open. */
  public List<String> streamLines(String path, int maxLines, Duration timeout) {
    HttpRequest req = request(path).timeout(timeout).GET().build();
    try {
      HttpResponse<InputStream> response =
          client.send(req, HttpResponse.BodyHandlers.ofInputStream());
      List<String> lines = new ArrayList<>();
      try (var reader =
          new java.io.BufferedReader(
              new java.io.InputStreamReader(
                  response.body(), java.nio.charset.StandardCharsets.UTF_8))) {
        String line;
        while (lines.size() < maxLines && (line = reader.readLine()) != null) {
          lines.add(line);
        }
      }
      return lines;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  private HttpRequest.Builder request(String path) {
    HttpRequest.Builder builder =
        HttpRequest.newBuilder(URI.create(base + path)).timeout(Duration.ofSeconds(30));
    if (token != null) {
      builder.header("Authorization", "Bearer " + token);
    }
    return builder;
  }

  private Response send(HttpRequest.Builder builder) {
    try {
      HttpResponse<String> response =
          client.send(builder.build(), HttpResponse.BodyHandlers.ofString());
      return new Response(response.statusCode(), response.headers(), response.body());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  /** An HTTP answer. */
  public record Response(int status, java.net.http.HttpHeaders headers, String body) {

    public JsonNode json() {
      return JSON.readTree(body);
    }

    public String contentType() {
      return headers.firstValue("Content-Type").orElse("");
    }
  }
}
