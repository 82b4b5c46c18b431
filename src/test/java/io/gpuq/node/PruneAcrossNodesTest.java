package io.gpuq.node;

import static io.gpuq.support.JobJson.aJob;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.gpuq.job.JobState;
import io.gpuq.job.JobStore;
import io.gpuq.support.GpuqCluster;
import io.gpuq.support.HttpApi;
import io.gpuq.support.IntegrationTier;
import io.gpuq.support.PostgresSupport;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

/**
 * A prune is a stored fact, like a cancel: whichever node stored it, the node that runs the worker
 * stops it, and its exit leaves the job PRUNED.
 */
@IntegrationTier
@DisplayName("A job pruned through one node while it runs on another")
class PruneAcrossNodesTest {

  private static final String WHY = "stopped by the sweep's early-stopping rule (median) at step 4";

  @Test
  void is_stopped_by_the_node_that_runs_it_and_ends_pruned_not_lost() throws Exception {
    Path root =
        Files.createTempDirectory(
            Files.createDirectories(Path.of("target/test-data")).toAbsolutePath(), "prune-across-");
    GpuqCluster cluster = new GpuqCluster(PostgresSupport.freshDatabase(), root);
    // node-a runs nothing: the job can only run on node-b.
    try (GpuqCluster.Node a = cluster.start("node-a", "--gpuq.scheduler.cpu-slots=0");
        GpuqCluster.Node b = cluster.start("node-b", "--gpuq.scheduler.cpu-slots=2")) {
      HttpApi apiA = a.api();
      HttpApi apiB = b.api();
      String id = apiA.submit(aJob().command("sleep", "60").json());
      await().atMost(Duration.ofSeconds(30)).until(() -> hasProcess(apiA.job(id)));
      long pid = apiA.job(id).get("attempts").get(0).get("pid").asLong();

      JobStore throughNodeA = a.context().getBean(JobStore.class);
      boolean pruned = throughNodeA.prune(id, WHY, a.context().getBean(Clock.class).instant());

      assertThat(pruned).isTrue();
      await()
          .atMost(Duration.ofSeconds(20))
          .untilAsserted(() -> assertThat(ProcessHandle.of(pid)).isEmpty());
      await()
          .atMost(Duration.ofSeconds(20))
          .until(() -> apiA.job(id).get("attempts").get(0).path("exitCode").isNumber());
      JsonNode job = apiA.job(id);
      assertThat(job.get("state").asString()).isEqualTo(JobState.PRUNED.name());
      JsonNode attempt = job.get("attempts").get(0);
      assertThat(attempt.get("outcome").asString()).isEqualTo("PRUNED");
      assertThat(attempt.get("failureMessage").asString()).isEqualTo(WHY);
      assertThat(apiB.get("/api/v1/jobs/" + id + "/logs").body().strip())
          .endsWith("=== gpuq: stopped: pruned by the sweep's early-stopping rule ===");
    }
  }

  private static boolean hasProcess(JsonNode job) {
    JsonNode attempts = job.get("attempts");
    return job.get("state").asString().equals("RUNNING")
        && attempts.size() == 1
        && attempts.get(0).path("pid").isNumber();
  }
}
