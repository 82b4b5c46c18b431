package io.gpuq.node;

import static io.gpuq.support.JobJson.aJob;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.gpuq.support.GpuqCluster;
import io.gpuq.support.HttpApi;
import io.gpuq.support.IntegrationTier;
import io.gpuq.support.PostgresSupport;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

@IntegrationTier
@DisplayName("A job cancelled through one node while it runs on another")
class CancelAcrossNodesTest {

  @Test
  void is_stopped_by_the_node_that_runs_it_and_ends_cancelled_not_lost() throws Exception {
    Path root =
        Files.createTempDirectory(
            Files.createDirectories(Path.of("target/test-data")).toAbsolutePath(),
            "cancel-across-");
    GpuqCluster cluster = new GpuqCluster(PostgresSupport.freshDatabase(), root);
    // node-a runs nothing: the job can only run on node-b.
    try (GpuqCluster.Node a = cluster.start("node-a", "--gpuq.scheduler.cpu-slots=0");
        GpuqCluster.Node b = cluster.start("node-b", "--gpuq.scheduler.cpu-slots=2")) {
      HttpApi apiA = a.api();
      HttpApi apiB = b.api();
      String id = apiA.submit(aJob().command("sleep", "60").json());
      await().atMost(Duration.ofSeconds(30)).until(() -> hasProcess(apiA.job(id)));
      long pid = apiA.job(id).get("attempts").get(0).get("pid").asLong();
      assertThat(apiA.job(id).get("placement").get("node").asString()).isEqualTo("node-b");

      var cancel = apiA.post("/api/v1/jobs/" + id + "/cancel");

      assertThat(cancel.status()).isEqualTo(200);
      assertThat(cancel.json().get("state").asString()).isEqualTo("CANCELLED");
      await()
          .atMost(Duration.ofSeconds(20))
          .untilAsserted(() -> assertThat(ProcessHandle.of(pid)).isEmpty());
      await()
          .atMost(Duration.ofSeconds(20))
          .until(() -> !absent(apiA.job(id).get("attempts").get(0).path("exitCode")));
      JsonNode job = apiA.job(id);
      assertThat(job.get("state").asString()).isEqualTo("CANCELLED");
      assertThat(absent(job.path("failureReason"))).isTrue();
      JsonNode attempt = job.get("attempts").get(0);
      assertThat(attempt.get("outcome").asString()).isEqualTo("CANCELLED");
      assertThat(absent(attempt.path("failureReason"))).isTrue();
      assertThat(attempt.get("failureMessage").asString()).isEqualTo("cancelled by the user");
      // Its log says why it stopped as the node that stopped it judged: not "given to another
      // node", which is what a node stopping a worker it thinks stale writes.
      assertThat(apiB.get("/api/v1/jobs/" + id + "/logs").body().strip())
          .endsWith("=== gpuq: stopped: cancelled by the user ===");
    }
  }

  private static boolean absent(JsonNode field) {
    return field.isMissingNode() || field.isNull();
  }

  private static boolean hasProcess(JsonNode job) {
    JsonNode attempts = job.get("attempts");
    return job.get("state").asString().equals("RUNNING")
        && attempts.size() == 1
        && attempts.get(0).path("pid").isNumber();
  }
}
