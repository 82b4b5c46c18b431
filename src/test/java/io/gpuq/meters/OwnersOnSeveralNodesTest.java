package io.gpuq.meters;

import static io.gpuq.support.JobJson.aJob;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;
import static org.awaitility.Awaitility.await;

import io.gpuq.support.Gate;
import io.gpuq.support.GpuqCluster;
import io.gpuq.support.HttpApi;
import io.gpuq.support.IntegrationTier;
import io.gpuq.support.PostgresSupport;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

/**
 * Two gpuq nodes on one PostgreSQL: each owner's jobs are counted over every node, so either node's
 * {@code GET /api/v1/owners} and either node's {@code gpuq_owner_*} series show the same figures,
 * whichever node runs the jobs.
 */
@IntegrationTier
@DisplayName("Owners over several nodes: every node counts every node's jobs")
class OwnersOnSeveralNodesTest {

  private static final String ALICE_TOKEN = "alice-cluster-token-0123456789";
  private static final Duration SOON = Duration.ofSeconds(60);

  @Test
  void either_node_shows_each_owners_jobs_on_both_nodes() throws Exception {
    Path root =
        Files.createTempDirectory(
            Files.createDirectories(Path.of("target/test-data")).toAbsolutePath(), "owners-");
    GpuqCluster cluster = new GpuqCluster(PostgresSupport.freshDatabase(), root);
    Gate release = Gate.in(root, "release");
    String[] alice = {
      "--gpuq.auth.tokens[1].name=alice",
      "--gpuq.auth.tokens[1].token=" + ALICE_TOKEN,
      "--gpuq.auth.tokens[1].share=2",
      // Both owners' jobs run as the tests' account.
      "--gpuq.worker.allow-shared-account=true"
    };
    try (GpuqCluster.Node a = cluster.start("node-a", with(alice, "--gpuq.node-labels.pool=a"));
        GpuqCluster.Node b = cluster.start("node-b", with(alice, "--gpuq.node-labels.pool=b"))) {
      HttpApi adminA = a.api();
      HttpApi aliceB = b.api().as(ALICE_TOKEN);
      try {
        // alice's jobs, submitted to node-b: one runs on each node.
        for (String pool : List.of("a", "b")) {
          aliceB.submit(
              aJob()
                  .shell(release.shellWait())
                  .gpus(1)
                  .gpuFraction(0.25)
                  .field("nodeSelector", Map.of("pool", pool))
                  .json());
        }
        await()
            .atMost(SOON)
            .untilAsserted(
                () -> {
                  for (HttpApi api : List.of(adminA, b.api(), aliceB)) {
                    JsonNode owners = api.get("/api/v1/owners").json();
                    JsonNode row = row(owners, "alice");
                    assertThat(row.path("runningJobs").asLong()).isEqualTo(2);
                    assertThat(row.path("gpus").asDouble()).isCloseTo(0.5, within(1e-9));
                    assertThat(row.path("share").asDouble()).isEqualTo(2.0);
                    assertThat(owners.path("totals").path("capacity").path("gpus").asLong())
                        .isEqualTo(4);
                  }
                });
        await()
            .atMost(SOON)
            .untilAsserted(
                () -> {
                  for (HttpApi api : List.of(adminA, b.api())) {
                    Exposition scrape =
                        Exposition.parse(api.as(null).get("/actuator/prometheus").body());
                    assertThat(scrape.value("gpuq_owner_running_jobs", Map.of("owner", "alice")))
                        .isEqualTo(2.0);
                    assertThat(scrape.value("gpuq_owner_share", Map.of("owner", "alice")))
                        .isEqualTo(2.0);
                    assertThat(scrape.value("gpuq_owner_running_jobs", Map.of("owner", "cluster")))
                        .isZero();
                  }
                });
        // alice, a submitter, sees her row alone.
        assertThat(aliceB.get("/api/v1/owners").json().path("owners")).hasSize(1);
      } finally {
        release.open();
      }
      await()
          .atMost(SOON)
          .until(
              () ->
                  row(adminA.get("/api/v1/owners").json(), "alice").path("runningJobs").asLong()
                      == 0);
    }
  }

  private static String[] with(String[] args, String more) {
    String[] all = java.util.Arrays.copyOf(args, args.length + 1);
    all[args.length] = more;
    return all;
  }

  private static JsonNode row(JsonNode owners, String owner) {
    for (JsonNode row : owners.path("owners")) {
      if (row.path("owner").asString().equals(owner)) {
        return row;
      }
    }
    throw new AssertionError("no row of " + owner + " in " + owners);
  }
}
