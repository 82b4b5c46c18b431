package io.gpuq.api;

import static io.gpuq.support.JobJson.aJob;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.sun.net.httpserver.HttpServer;
import io.gpuq.support.GpuqProcess;
import io.gpuq.support.HttpApi;
import io.gpuq.support.IntegrationTier;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

/**
 * A notification whose receiver answered 503, and gpuq killed with SIGKILL before its next try: the
 * delivery is not lost, and after the restart it is tried again, with the same id, and delivered.
 */
@IntegrationTier
@DisplayName("Notifications survive a gpuq killed between two tries (issue 37)")
class NotificationRestartTest {

  private static final String TOKEN = "notification-restart-token-0123456789";

  /** One POST: its delivery id and the status it was answered. */
  record Try(String deliveryId, int status) {}

  @Test
  @DisplayName("a 503, SIGKILL, restart: the same delivery is tried again and delivered")
  void a_delivery_is_tried_again_after_a_restart() throws Exception {
    Path dataDir =
        Files.createTempDirectory(
            Files.createDirectories(Path.of("target/test-data")).toAbsolutePath(),
            "notify-restart-");
    AtomicBoolean accepting = new AtomicBoolean(false);
    List<Try> tries = Collections.synchronizedList(new ArrayList<>());
    HttpServer server =
        HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 16);
    ExecutorService threads = Executors.newCachedThreadPool();
    server.setExecutor(threads);
    server.createContext(
        "/",
        exchange -> {
          try (InputStream in = exchange.getRequestBody()) {
            in.readAllBytes();
          }
          int status = accepting.get() ? 200 : 503;
          tries.add(new Try(exchange.getRequestHeaders().getFirst("X-Gpuq-Delivery"), status));
          exchange.sendResponseHeaders(status, -1);
          exchange.close();
        });
    server.start();
    String[] args = {
      "--gpuq.notifications.allowed-hosts=127.0.0.1",
      "--gpuq.notifications.secret=restart-secret",
      "--gpuq.notifications.first-retry=3s",
      "--gpuq.notifications.interval=250ms"
    };
    String url = "http://127.0.0.1:" + server.getAddress().getPort() + "/hook";
    try {
      String id;
      try (GpuqProcess first = GpuqProcess.start(dataDir, TOKEN, args)) {
        HttpApi api = first.api(TOKEN);
        id =
            api.submit(
                aJob().field("notify", List.of(Map.of("url", url, "on", List.of("ENDED")))).json());
        // Its first try failed, and that is stored (the claim released): gpuq dies before the next.
        await().atMost(Duration.ofSeconds(30)).until(() -> lastError(api, id).contains("503"));
        first.crash();
      }
      int before = tries.size();
      assertThat(tries).allSatisfy(t -> assertThat(t.status()).isEqualTo(503));
      accepting.set(true);

      try (GpuqProcess second = GpuqProcess.start(dataDir, TOKEN, args)) {
        HttpApi api = second.api(TOKEN);
        await()
            .atMost(Duration.ofSeconds(30))
            .until(() -> standing(api, id).get("status").asString().equals("DELIVERED"));
        assertThat(standing(api, id).get("attempts").asInt()).isEqualTo(before + 1);
      }
      assertThat(tries).hasSize(before + 1);
      assertThat(tries.get(before).status()).isEqualTo(200);
      assertThat(tries).extracting(Try::deliveryId).containsOnly(tries.get(0).deliveryId());
    } finally {
      server.stop(0);
      threads.shutdownNow();
    }
  }

  private static JsonNode standing(HttpApi api, String id) {
    return api.get("/api/v1/jobs/" + id + "/notifications").json().get("notifications").get(0);
  }

  private static String lastError(HttpApi api, String id) {
    JsonNode notifications = api.get("/api/v1/jobs/" + id + "/notifications").json();
    JsonNode list = notifications.get("notifications");
    return list == null || list.isEmpty() ? "" : list.get(0).get("lastError").asString("");
  }
}
