package io.gpuq.node;

import static io.gpuq.support.JobJson.aJob;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.gpuq.support.GpuqCluster;
import io.gpuq.support.HttpApi;
import io.gpuq.support.IntegrationTier;
import io.gpuq.support.JobJson;
import io.gpuq.support.PostgresSupport;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

/**
 * Issue 37 on two nodes sharing one PostgreSQL: a job waits for one that runs on the other node,
 * and a cancel cascades from node to node. Jobs are pinned with node labels, so each dependency
 * crosses nodes.
 */
@IntegrationTier
@DisplayName("Dependencies across two nodes on one PostgreSQL")
class DependenciesAcrossNodesTest {

  private static final String ALICE = "deps-nodes-alice-0123456789abc";
  private static final Duration SOON = Duration.ofSeconds(60);

  private static String[] args(String pool) {
    return new String[] {
      "--gpuq.node-labels.pool=" + pool,
      "--gpuq.worker.allow-shared-account=true",
      "--gpuq.auth.tokens[1].name=alice",
      "--gpuq.auth.tokens[1].token=" + ALICE
    };
  }

  private static JobJson on(String pool, JobJson job) {
    return job.field("nodeSelector", Map.of("pool", pool));
  }

  private static JobJson after(JobJson job, String condition, String id) {
    return job.field("dependsOn", List.of(Map.of("job", id, "condition", condition)));
  }

  @Test
  void a_job_starts_once_after_its_dependency_on_the_other_node_and_a_cancel_crosses_nodes()
      throws Exception {
    Path root =
        Files.createTempDirectory(
            Files.createDirectories(Path.of("target/test-data")).toAbsolutePath(), "deps-nodes-");
    Path runs = root.resolve("runs.txt");
    GpuqCluster cluster = new GpuqCluster(PostgresSupport.freshDatabase(), root);
    try (GpuqCluster.Node a = cluster.start("node-a", args("a"));
        GpuqCluster.Node b = cluster.start("node-b", args("b"))) {
      a.awaitSees(b);
      b.awaitSees(a);
      HttpApi onA = a.api().as(ALICE);
      HttpApi onB = b.api().as(ALICE);

      // Submitted to node b, each to run on the other node than the one before.
      String first = onB.submit(on("a", aJob().shell("sleep 2; echo first >> " + runs)).json());
      String second =
          onB.submit(
              on("b", after(aJob().shell("echo second >> " + runs), "afterok", first)).json());
      String failing = onA.submit(on("a", aJob().shell("sleep 1; exit 3")).json());
      String cancelled = onA.submit(on("b", after(aJob(), "afterok", failing)).json());
      String cascaded = onB.submit(on("a", after(aJob(), "afterok", cancelled)).json());

      await().atMost(SOON).ignoreExceptions().until(() -> onA.state(second).equals("SUCCEEDED"));
      JsonNode before = onA.job(first).get("attempts").get(0);
      JsonNode after = onB.job(second).get("attempts");
      assertThat(before.get("node").asString()).isEqualTo("node-a");
      assertThat(after).hasSize(1);
      assertThat(after.get(0).get("node").asString()).isEqualTo("node-b");
      assertThat(Instant.parse(after.get(0).get("startedAt").asString()))
          .isAfterOrEqualTo(Instant.parse(before.get("finishedAt").asString()));
      assertThat(Files.readAllLines(runs)).containsExactly("first", "second");

      await().atMost(SOON).ignoreExceptions().until(() -> onB.state(cascaded).equals("CANCELLED"));
      assertThat(onA.state(failing)).isEqualTo("FAILED");
      JsonNode cancelledJob = onB.job(cancelled);
      assertThat(cancelledJob.get("state").asString()).isEqualTo("CANCELLED");
      assertThat(cancelledJob.get("failureMessage").asString()).contains("job " + failing);
      assertThat(cancelledJob.get("attempts")).isEmpty();
      JsonNode cascadedJob = onA.job(cascaded);
      assertThat(cascadedJob.get("failureMessage").asString()).contains("job " + cancelled);
      assertThat(cascadedJob.get("attempts")).isEmpty();
    }
  }
}
