package io.gpuq.api;

import static org.assertj.core.api.Assertions.assertThat;

import io.gpuq.support.HttpApi;
import io.gpuq.support.IntegrationTest;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Locale;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;
import tools.jackson.databind.JsonNode;

/**
 * Requests are sent byte for byte over a socket: an HTTP client would re-encode or normalise the
 * very paths these tests are about.
 */
@DisplayName("Every error is a problem (application/problem+json), never HTML, never a 500")
class ErrorAnswersIntegrationTest extends IntegrationTest {

  @ParameterizedTest(name = "{0}")
  @ValueSource(
      strings = {
        "/api/v1/jobs/%2f",
        "/api/v1/jobs/a%2Fb/cancel",
        "/api/v1/jobs/%00",
        "/api/v1/jobs/a%00b/logs",
        "/api/v1/jobs/%5c",
        "/api/v1/jobs/%2e%2e%2f%2e%2e%2fetc",
        "/api/v1/jobs/%ff%fe",
      })
  void a_path_tomcat_refuses_is_a_4xx_problem(String path) {
    RawAnswer answer = raw("GET " + path + " HTTP/1.1", ADMIN_TOKEN);

    assertThat(answer.status()).as(answer.text()).isBetween(400, 499);
    assertThat(answer.contentType()).startsWith("application/problem+json");
    assertThat(answer.json().get("status").asInt()).isEqualTo(answer.status());
    assertThat(answer.text()).doesNotContainIgnoringCase("<html");
  }

  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {"GET /{} HTTP/1.1", "GET /api/v1/jobs?a=|<> HTTP/1.1"})
  void a_malformed_request_line_is_a_400_problem(String requestLine) {
    RawAnswer answer = raw(requestLine, null);

    assertThat(answer.status()).as(answer.text()).isEqualTo(400);
    assertThat(answer.contentType()).startsWith("application/problem+json");
  }

  @ParameterizedTest(name = "with token: {0}")
  @ValueSource(booleans = {true, false})
  void the_error_path_itself_is_a_404_problem(boolean withToken) {
    RawAnswer answer = raw("GET /error HTTP/1.1", withToken ? ALICE_TOKEN : null);

    assertThat(answer.status()).as(answer.text()).isEqualTo(404);
    assertThat(answer.contentType()).startsWith("application/problem+json");
  }

  @ParameterizedTest(name = "{0}")
  @ValueSource(
      strings = {
        "/actuator/health/a/..",
        "/actuator/health/..",
        "/actuator/health/%2e%2e",
        "/actuator/health/liveness/../readiness",
        "/actuator/health/no-such-group",
        "/api/v1/jobs/..",
        "/api/v1/..",
        "/no/such/path",
      })
  void odd_paths_are_answered_without_a_500(String path) {
    RawAnswer answer = raw("GET " + path + " HTTP/1.1", ADMIN_TOKEN);

    assertThat(answer.status()).as(answer.text()).isLessThan(500);
    if (answer.status() >= 400) {
      assertThat(answer.contentType()).as(answer.head()).startsWith("application/problem+json");
    }
  }

  @ParameterizedTest(name = "{0} with token: {1}")
  @CsvSource({
    "/actuator/health/../../x, true",
    "/actuator/health/../../x, false",
    "/actuator/health/../x, true",
    "/actuator/../x, false",
    "/actuator/health/%2e%2e/%2E%2e/x, true",
    "/actuator/health/..;a=b/../x, false",
    "/api/v1/jobs/../../../actuator/prometheus, false",
    "/actuator/health/./liveness, true",
  })
  void a_path_with_a_dot_segment_is_a_404_problem_whoever_asks(String path, boolean withToken) {
    RawAnswer answer = raw("GET " + path + " HTTP/1.1", withToken ? ADMIN_TOKEN : null);

    assertThat(answer.status()).as(answer.head()).isEqualTo(404);
    assertThat(answer.contentType()).as(answer.head()).startsWith("application/problem+json");
    assertThat(answer.json().get("status").asInt()).isEqualTo(404);
    assertThat(answer.json().get("detail").asString()).contains("'..'");
  }

  @ParameterizedTest(name = "{0} with token: {1}")
  @CsvSource({
    "/actuator/health/no-such-group, false",
    "/actuator/health/no-such-group, true",
    "/actuator/no-such-endpoint, true",
    "/actuator/health/liveness/x/y, true",
  })
  void every_404_under_the_actuator_is_a_problem(String path, boolean withToken) {
    RawAnswer answer = raw("GET " + path + " HTTP/1.1", withToken ? ADMIN_TOKEN : null);

    assertThat(answer.status()).as(answer.head()).isEqualTo(404);
    assertThat(answer.contentType()).as(answer.head()).startsWith("application/problem+json");
    assertThat(answer.json().get("status").asInt()).isEqualTo(404);
  }

  private RawAnswer raw(String requestLine, String token) {
    try (Socket socket = new Socket("127.0.0.1", port)) {
      socket.setSoTimeout((int) Duration.ofSeconds(30).toMillis());
      StringBuilder request = new StringBuilder(requestLine).append("\r\n");
      request.append("Host: 127.0.0.1:").append(port).append("\r\n");
      request.append("Accept: text/html,application/json;q=0.9,*/*;q=0.8\r\n");
      if (token != null) {
        request.append("Authorization: Bearer ").append(token).append("\r\n");
      }
      request.append("Connection: close\r\n\r\n");
      OutputStream out = socket.getOutputStream();
      out.write(request.toString().getBytes(StandardCharsets.ISO_8859_1));
      out.flush();
      InputStream in = socket.getInputStream();
      return RawAnswer.parse(new String(in.readAllBytes(), StandardCharsets.UTF_8));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** A whole HTTP/1.1 answer as read from the socket. */
  private record RawAnswer(int status, String head, String text) {

    static RawAnswer parse(String answer) {
      int end = answer.indexOf("\r\n\r\n");
      String head = end < 0 ? answer : answer.substring(0, end);
      String body = end < 0 ? "" : answer.substring(end + 4);
      if (head.toLowerCase(Locale.ROOT).contains("transfer-encoding: chunked")) {
        body = unchunk(body);
      }
      int status = Integer.parseInt(head.substring(9, 12));
      return new RawAnswer(status, head, body);
    }

    String contentType() {
      for (String line : head.split("\r\n")) {
        if (line.toLowerCase(Locale.ROOT).startsWith("content-type:")) {
          return line.substring("content-type:".length()).trim();
        }
      }
      return "";
    }

    JsonNode json() {
      return HttpApi.JSON.readTree(text);
    }

    private static String unchunk(String chunked) {
      StringBuilder body = new StringBuilder();
      int at = 0;
      while (at < chunked.length()) {
        int lineEnd = chunked.indexOf("\r\n", at);
        int size = Integer.parseInt(chunked.substring(at, lineEnd).trim(), 16);
        if (size == 0) {
          break;
        }
        // Sizes count bytes; these bodies are ASCII JSON.
        body.append(chunked, lineEnd + 2, lineEnd + 2 + size);
        at = lineEnd + 2 + size + 2;
      }
      return body.toString();
    }
  }
}
