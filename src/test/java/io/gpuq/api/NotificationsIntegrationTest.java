package io.gpuq.api;

import static io.gpuq.support.JobJson.aJob;
import static io.gpuq.support.SweepJson.aGridSweep;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.gpuq.support.HttpApi;
import io.gpuq.support.HttpApi.Response;
import io.gpuq.support.IntegrationTest;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

@DisplayName(
    "Notifications (issue 37): a real gpuq POSTs its jobs' and sweeps' events, signed, to a real"
        + " local receiver")
class NotificationsIntegrationTest extends IntegrationTest {

  private static final Duration SOON = Duration.ofSeconds(30);

  /** One POST as the receiver got it. */
  record Received(String path, Map<String, String> headers, String body) {
    JsonNode json() {
      return HttpApi.JSON.readTree(body);
    }

    String header(String name) {
      return headers.get(name.toLowerCase());
    }
  }

  /**
   * A receiver on the loopback address: {@code /ok/...} answers 204, {@code /flaky/...} 500 to its
   * first POST and 200 after, {@code /redirect/...} 302 to {@code /target/...} (which answers 200).
   */
  private static HttpServer server;

  private static ExecutorService serverThreads;
  private static final List<Received> received = Collections.synchronizedList(new ArrayList<>());
  private static final Map<String, AtomicInteger> hits = new ConcurrentHashMap<>();

  /** {@code /hang/...} holds each POST, unanswered, until this opens (or 40 s have passed). */
  private static final CountDownLatch hangs = new CountDownLatch(1);

  private static final Map<String, Instant> firstArrival = new ConcurrentHashMap<>();

  @BeforeAll
  static void receiver() throws IOException {
    server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 16);
    // A thread per exchange: a receiver that hangs holds one, never the others.
    serverThreads = Executors.newCachedThreadPool();
    server.setExecutor(serverThreads);
    server.createContext("/", NotificationsIntegrationTest::answer);
    server.start();
  }

  @AfterAll
  static void stopReceiver() {
    hangs.countDown();
    server.stop(0);
    serverThreads.shutdownNow();
  }

  private static void answer(HttpExchange exchange) throws IOException {
    String path = exchange.getRequestURI().getPath();
    String body;
    try (InputStream in = exchange.getRequestBody()) {
      body = new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
    Map<String, String> headers = new ConcurrentHashMap<>();
    exchange.getRequestHeaders().forEach((k, v) -> headers.put(k.toLowerCase(), v.get(0)));
    received.add(new Received(path, headers, body));
    firstArrival.putIfAbsent(path, Instant.now());
    if (path.startsWith("/hang/")) {
      try {
        hangs.await(40, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      exchange.close();
      return;
    }
    int n = hits.computeIfAbsent(path, p -> new AtomicInteger()).incrementAndGet();
    int status = 204;
    if (path.startsWith("/flaky/") && n == 1) {
      status = 500;
    } else if (path.startsWith("/redirect/")) {
      exchange
          .getResponseHeaders()
          .add("Location", url("/target/" + path.substring("/redirect/".length())));
      status = 302;
    } else if (path.startsWith("/target/")) {
      status = 200;
    }
    exchange.sendResponseHeaders(status, -1);
    exchange.close();
  }

  private static String url(String path) {
    return "http://127.0.0.1:" + server.getAddress().getPort() + path;
  }

  private static List<Received> at(String path) {
    synchronized (received) {
      return received.stream().filter(r -> r.path().equals(path)).toList();
    }
  }

  private static Map<String, Object> target(String path, String format, String... on) {
    return format == null
        ? Map.of("url", url(path), "on", List.of(on))
        : Map.of("url", url(path), "on", List.of(on), "format", format);
  }

  /** The signature as a receiver computes it: HMAC-SHA256 of the timestamp, a dot and the body. */
  private static String expectedSignature(String timestamp, String body) throws Exception {
    Mac mac = Mac.getInstance("HmacSHA256");
    mac.init(
        new SecretKeySpec(NOTIFICATIONS_SECRET.getBytes(StandardCharsets.UTF_8), "HmacSHA256"));
    byte[] digest = mac.doFinal((timestamp + "." + body).getBytes(StandardCharsets.UTF_8));
    return "sha256=" + HexFormat.of().formatHex(digest);
  }

  private static void assertSigned(Received r) throws Exception {
    String timestamp = r.header("X-Gpuq-Timestamp");
    assertThat(Long.parseLong(timestamp))
        .isBetween(Instant.now().getEpochSecond() - 60, Instant.now().getEpochSecond() + 5);
    assertThat(r.header("X-Gpuq-Signature")).isEqualTo(expectedSignature(timestamp, r.body()));
    assertThat(r.header("Content-Type")).startsWith("application/json");
  }

  @Test
  @DisplayName(
      "a job that succeeds sends STARTED and ENDED, not FAILED, each signed with the secret and"
          + " carrying the job's figures")
  void a_succeeding_job_sends_started_and_ended() throws Exception {
    String path = "/ok/" + UUID.randomUUID();
    String id =
        alice.submit(
            aJob()
                .name("notified")
                .shell("sleep 0.3")
                .field("notify", List.of(target(path, null, "STARTED", "ENDED", "FAILED")))
                .json());

    await().atMost(SOON).until(() -> at(path).size() >= 2);
    await().pollDelay(Duration.ofSeconds(1)).atMost(SOON).until(() -> true);
    List<Received> got = at(path);
    assertThat(got).hasSize(2);
    Map<String, Received> byEvent = new ConcurrentHashMap<>();
    for (Received r : got) {
      assertSigned(r);
      byEvent.put(r.json().get("event").asString(), r);
    }
    assertThat(byEvent).containsOnlyKeys("STARTED", "ENDED");
    JsonNode ended = byEvent.get("ENDED").json();
    assertThat(ended.get("job").get("id").asString()).isEqualTo(id);
    assertThat(ended.get("job").get("name").asString()).isEqualTo("notified");
    assertThat(ended.get("job").get("owner").asString()).isEqualTo("alice");
    assertThat(ended.get("job").get("state").asString()).isEqualTo("SUCCEEDED");
    assertThat(ended.get("job").get("exitCode").asInt()).isZero();
    assertThat(ended.get("job").get("finishedAt").isString()).isTrue();
    assertThat(ended.get("id").asString())
        .isEqualTo(byEvent.get("ENDED").header("X-Gpuq-Delivery"));
    Instant.parse(ended.get("time").asString());
  }

  @Test
  @DisplayName(
      "a job that fails sends FAILED with its exit code, in gpuq's JSON and in Slack's form")
  void a_failing_job_sends_failed() throws Exception {
    String json = "/ok/" + UUID.randomUUID();
    String slack = "/ok/" + UUID.randomUUID();
    String id =
        alice.submit(
            aJob()
                .name("doomed")
                .shell("exit 3")
                .field(
                    "notify",
                    List.of(target(json, "json", "FAILED"), target(slack, "slack", "ENDED")))
                .json());

    await().atMost(SOON).until(() -> at(json).size() == 1 && at(slack).size() == 1);
    Received failed = at(json).get(0);
    assertSigned(failed);
    assertThat(failed.json().get("event").asString()).isEqualTo("FAILED");
    assertThat(failed.json().get("job").get("id").asString()).isEqualTo(id);
    assertThat(failed.json().get("job").get("state").asString()).isEqualTo("FAILED");
    assertThat(failed.json().get("job").get("exitCode").asInt()).isEqualTo(3);
    Received text = at(slack).get(0);
    assertSigned(text);
    assertThat(text.json().propertyNames()).containsExactly("text");
    assertThat(text.json().get("text").asString())
        .contains("doomed", id, "alice", "ended FAILED", "exit code 3");
  }

  @Test
  @DisplayName("a sweep sends DONE with its trials' counts")
  void a_sweep_sends_done() throws Exception {
    String path = "/ok/" + UUID.randomUUID();
    Response created =
        alice.post(
            "/api/v1/sweeps",
            aGridSweep()
                .values("x", 1, 2)
                .field("notify", List.of(target(path, null, "DONE")))
                .json());
    assertThat(created.status()).as(created.body()).isEqualTo(201);
    String sweepId = created.json().get("id").asString();

    await().atMost(SOON).until(() -> at(path).size() == 1);
    Received done = at(path).get(0);
    assertSigned(done);
    JsonNode sweep = done.json().get("sweep");
    assertThat(done.json().get("event").asString()).isEqualTo("DONE");
    assertThat(sweep.get("id").asString()).isEqualTo(sweepId);
    assertThat(sweep.get("state").asString()).isEqualTo("DONE");
    assertThat(sweep.get("counts").get("SUCCEEDED").asInt()).isEqualTo(2);
    assertThat(sweep.get("best").isNull()).isTrue();
    // Readable like a job's: by the sweep's owner, not by another owner; no URL in it.
    await()
        .atMost(SOON)
        .untilAsserted(
            () -> {
              Response standing = alice.get("/api/v1/sweeps/" + sweepId + "/notifications");
              assertThat(standing.status()).isEqualTo(200);
              JsonNode list = standing.json().get("notifications");
              assertThat(list).hasSize(1);
              assertThat(list.get(0).get("event").asString()).isEqualTo("DONE");
              assertThat(list.get(0).get("status").asString()).isEqualTo("DELIVERED");
              assertThat(list.get(0).get("id").asString())
                  .isEqualTo(done.header("X-Gpuq-Delivery"));
              assertThat(standing.body()).doesNotContain("127.0.0.1");
            });
    assertThat(bob.get("/api/v1/sweeps/" + sweepId + "/notifications").status()).isIn(403, 404);
    assertThat(alice.get("/api/v1/sweeps/01NOSUCHSWEEP0000000000000/notifications").status())
        .isEqualTo(404);
  }

  @Test
  @DisplayName(
      "a receiver that answers 500 gets the same delivery again (same id), which then succeeds")
  void a_failed_try_is_retried() throws Exception {
    String path = "/flaky/" + UUID.randomUUID();
    String id = alice.submit(aJob().field("notify", List.of(target(path, null, "ENDED"))).json());

    await().atMost(SOON).until(() -> at(path).size() == 2);
    List<Received> tries = at(path);
    assertThat(tries.get(1).header("X-Gpuq-Delivery"))
        .isEqualTo(tries.get(0).header("X-Gpuq-Delivery"));
    assertThat(tries.get(1).body()).isEqualTo(tries.get(0).body());
    assertSigned(tries.get(1));
    // Delivered: no third try.
    await().pollDelay(Duration.ofSeconds(3)).atMost(SOON).until(() -> true);
    assertThat(at(path)).hasSize(2);
    assertThat(alice.get("/actuator/prometheus").body())
        .containsPattern("gpuq_notifications_total\\{[^}]*outcome=\"failed\"[^}]*\\} [1-9]")
        .containsPattern("gpuq_notifications_total\\{[^}]*outcome=\"delivered\"[^}]*\\} [1-9]");
    // The job's owner sees it delivered on the second try; another owner does not see it.
    await()
        .atMost(SOON)
        .untilAsserted(
            () -> {
              JsonNode standing =
                  alice.get("/api/v1/jobs/" + id + "/notifications").json().get("notifications");
              assertThat(standing).hasSize(1);
              assertThat(standing.get(0).get("status").asString()).isEqualTo("DELIVERED");
              assertThat(standing.get(0).get("attempts").asInt()).isEqualTo(2);
              assertThat(standing.get(0).get("lastError").isNull()).isTrue();
            });
    assertThat(bob.get("/api/v1/jobs/" + id + "/notifications").status()).isIn(403, 404);
  }

  @Test
  @DisplayName(
      "a receiver that never answers delays no job's end and no other delivery (measured: both"
          + " within the hung POST's timeout, 20 s here)")
  void a_hung_receiver_delays_nothing_else() {
    String hung = "/hang/" + UUID.randomUUID();
    alice.submit(aJob().field("notify", List.of(target(hung, null, "ENDED"))).json());
    await().atMost(SOON).until(() -> firstArrival.containsKey(hung));
    Instant hangStarted = firstArrival.get(hung);

    String plain = alice.submit(aJob().json());
    String ok = "/ok/" + UUID.randomUUID();
    alice.submit(aJob().field("notify", List.of(target(ok, null, "ENDED"))).json());
    await().atMost(SOON).until(() -> alice.job(plain).get("finishedAt").isString());
    await().atMost(SOON).until(() -> firstArrival.containsKey(ok));

    Duration ended =
        Duration.between(hangStarted, Instant.parse(alice.job(plain).get("finishedAt").asString()));
    Duration delivered = Duration.between(hangStarted, firstArrival.get(ok));
    System.out.printf(
        "while a POST hung: a job ended %d ms and another's notification came %d ms after it%n",
        ended.toMillis(), delivered.toMillis());
    // Had either waited for the hung POST, it would have come after gpuq gave that try up.
    assertThat(ended).isLessThan(Duration.ofSeconds(20));
    assertThat(delivered).isLessThan(Duration.ofSeconds(20));
  }

  @Test
  @DisplayName("a redirect is not followed: the receiver's target is never POSTed to")
  void a_redirect_is_not_followed() {
    String tail = UUID.randomUUID().toString();
    String id =
        alice.submit(
            aJob().field("notify", List.of(target("/redirect/" + tail, null, "ENDED"))).json());

    // The first try, then its retry a second later: each answered 302, neither followed.
    await().atMost(SOON).until(() -> at("/redirect/" + tail).size() >= 2);
    assertThat(at("/target/" + tail)).isEmpty();
    // The job's notifications say why: the last error names the redirect.
    await()
        .atMost(SOON)
        .untilAsserted(
            () ->
                assertThat(
                        alice
                            .get("/api/v1/jobs/" + id + "/notifications")
                            .json()
                            .get("notifications")
                            .get(0)
                            .get("lastError")
                            .asString(""))
                    .contains("302", "not followed"));
  }

  @Test
  @DisplayName(
      "a host the operator does not allow, another scheme, an unknown event, a bad format and too"
          + " many entries are 400s naming the field")
  void bad_targets_are_refused() {
    int port = server.getAddress().getPort();
    assertProblem(
        alice.post(
            "/api/v1/jobs",
            aJob()
                .field("notify", List.of(Map.of("url", "http://localhost:" + port + "/ok/x")))
                .json()),
        "notify[0].url",
        "not allowed");
    assertProblem(
        alice.post(
            "/api/v1/jobs",
            aJob().field("notify", List.of(Map.of("url", "ftp://127.0.0.1/x"))).json()),
        "notify[0].url",
        "http");
    assertProblem(
        alice.post(
            "/api/v1/jobs",
            aJob().field("notify", List.of(target("/ok/x", null, "ENDED", "EXPLODED"))).json()),
        "notify[0].on[1]",
        "STARTED");
    assertProblem(
        alice.post(
            "/api/v1/jobs",
            aJob().field("notify", List.of(target("/ok/x", "xml", "ENDED"))).json()),
        "notify[0].format",
        "slack");
    List<Map<String, Object>> nine = new ArrayList<>();
    for (int i = 0; i < 9; i++) {
      nine.add(target("/ok/x", null, "ENDED"));
    }
    assertProblem(
        alice.post("/api/v1/jobs", aJob().field("notify", nine).json()), "notify", "at most 8");
    assertProblem(
        alice.post(
            "/api/v1/sweeps",
            aGridSweep()
                .values("x", 1)
                .field("notify", List.of(target("/ok/x", null, "ENDED")))
                .json()),
        "notify[0].on[0]",
        "DONE");
  }

  private static void assertProblem(Response response, String field, String words) {
    assertThat(response.status()).as(response.body()).isEqualTo(400);
    assertThat(response.contentType()).startsWith("application/problem+json");
    JsonNode errors = response.json().get("errors");
    assertThat(errors.findValuesAsString("field")).contains(field);
    assertThat(response.body()).contains(words);
  }
}
