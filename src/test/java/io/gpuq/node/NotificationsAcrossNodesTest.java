package io.gpuq.node;

import static io.gpuq.support.JobJson.aJob;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.sun.net.httpserver.HttpServer;
import io.gpuq.support.GpuqCluster;
import io.gpuq.support.HttpApi;
import io.gpuq.support.IntegrationTier;
import io.gpuq.support.PostgresSupport;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

/**
 * Issue 37's notifications on two nodes sharing one PostgreSQL: both nodes' notification duties
 * look at the same outbox, and each job's end reaches a real local receiver once, whichever node
 * ran the job and whichever node claimed the delivery.
 */
@IntegrationTier
@DisplayName("Notifications across two nodes on one PostgreSQL")
class NotificationsAcrossNodesTest {

  private static final String ALICE = "notify-nodes-alice-0123456789a";
  private static final Duration SOON = Duration.ofSeconds(60);
  private static final int JOBS = 6;

  /** One POST as the receiver got it: its delivery id and its body. */
  record Received(String delivery, String body) {}

  private static String[] args(String pool) {
    return new String[] {
      "--gpuq.node-labels.pool=" + pool,
      "--gpuq.worker.allow-shared-account=true",
      "--gpuq.auth.tokens[1].name=alice",
      "--gpuq.auth.tokens[1].token=" + ALICE,
      "--gpuq.notifications.allowed-hosts=127.0.0.1",
      "--gpuq.notifications.secret=notify-nodes-secret-0123456789",
      "--gpuq.notifications.first-retry=1s",
      "--gpuq.notifications.interval=100ms",
      "--gpuq.notifications.timeout=10s"
    };
  }

  @Test
  @DisplayName(
      "each job's end, on either node, is delivered once (one delivery id) though both nodes send")
  void each_end_is_delivered_once_though_both_nodes_send() throws Exception {
    List<Received> received = Collections.synchronizedList(new ArrayList<>());
    HttpServer receiver =
        HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 16);
    ExecutorService threads = Executors.newFixedThreadPool(4);
    receiver.setExecutor(threads);
    receiver.createContext(
        "/",
        exchange -> {
          try (exchange;
              InputStream in = exchange.getRequestBody()) {
            received.add(
                new Received(
                    exchange.getRequestHeaders().getFirst("X-Gpuq-Delivery"),
                    new String(in.readAllBytes(), StandardCharsets.UTF_8)));
            exchange.sendResponseHeaders(204, -1);
          }
        });
    receiver.start();
    Path root =
        Files.createTempDirectory(
            Files.createDirectories(Path.of("target/test-data")).toAbsolutePath(), "notify-nodes-");
    GpuqCluster cluster = new GpuqCluster(PostgresSupport.freshDatabase(), root);
    try (GpuqCluster.Node a = cluster.start("node-a", args("a"));
        GpuqCluster.Node b = cluster.start("node-b", args("b"))) {
      a.awaitSees(b);
      b.awaitSees(a);
      HttpApi onA = a.api().as(ALICE);
      HttpApi onB = b.api().as(ALICE);
      String url = "http://127.0.0.1:" + receiver.getAddress().getPort() + "/hook";

      // Submitted on one node, run on the other (half of them each way).
      List<String> ids = new ArrayList<>();
      for (int i = 0; i < JOBS; i++) {
        String pool = i % 2 == 0 ? "a" : "b";
        HttpApi submitter = i % 2 == 0 ? onB : onA;
        ids.add(
            submitter.submit(
                aJob()
                    .field("nodeSelector", Map.of("pool", pool))
                    .field("notify", List.of(Map.of("url", url, "on", List.of("ENDED"))))
                    .json()));
      }

      await().atMost(SOON).until(() -> received.size() >= JOBS);
      // Both nodes go on claiming for a while: nothing more arrives.
      await().pollDelay(Duration.ofSeconds(3)).atMost(SOON).until(() -> true);

      List<String> jobsDelivered = new ArrayList<>();
      List<String> deliveries = new ArrayList<>();
      synchronized (received) {
        for (Received r : received) {
          deliveries.add(r.delivery());
          JsonNode body = HttpApi.JSON.readTree(r.body());
          assertThat(body.get("id").asString()).isEqualTo(r.delivery());
          jobsDelivered.add(body.get("job").get("id").asString());
        }
      }
      assertThat(deliveries).hasSize(JOBS).doesNotHaveDuplicates();
      assertThat(jobsDelivered).containsExactlyInAnyOrderElementsOf(ids);
      for (int i = 0; i < JOBS; i++) {
        String id = ids.get(i);
        JsonNode job = onA.job(id);
        assertThat(job.get("state").asString()).isEqualTo("SUCCEEDED");
        assertThat(job.get("attempts").get(0).get("node").asString())
            .isEqualTo(i % 2 == 0 ? "node-a" : "node-b");
        JsonNode standing =
            onB.get("/api/v1/jobs/" + id + "/notifications").json().get("notifications");
        assertThat(standing).hasSize(1);
        assertThat(standing.get(0).get("status").asString()).isEqualTo("DELIVERED");
        assertThat(standing.get(0).get("attempts").asInt()).isEqualTo(1);
      }
    } finally {
      receiver.stop(0);
      threads.shutdownNow();
    }
  }
}
