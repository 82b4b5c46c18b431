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
import java.util.List;
import javax.sql.DataSource;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * Issue 35: two nodes on one PostgreSQL, each with one GPU held by a preemptible run of alice;
 * bob's job waits. Both nodes' passes may choose a victim for it; the preemption is stored once, on
 * the waiting job's versioned row, so exactly one of alice's runs gives way.
 */
@IntegrationTier
@DisplayName("Two nodes on one PostgreSQL preempt once for one waiting job")
class PreemptionAcrossNodesTest {

  private static final String ALICE = "preempt-nodes-alice-0123456789";
  private static final String BOB = "preempt-nodes-bob-0123456789ab";
  private static final Duration SOON = Duration.ofSeconds(40);

  private static String[] args() {
    return new String[] {
      // One GPU a node, each held by a run of alice.
      "--gpuq.gpu.emulated.count=1",
      "--gpuq.preemption.min-runtime=1s",
      "--gpuq.worker.allow-shared-account=true",
      "--gpuq.auth.tokens[1].name=alice",
      "--gpuq.auth.tokens[1].token=" + ALICE,
      "--gpuq.auth.tokens[2].name=bob",
      "--gpuq.auth.tokens[2].token=" + BOB
    };
  }

  @Test
  void exactly_one_victim_gives_way_and_the_waiting_job_starts_once() throws Exception {
    Path root =
        Files.createTempDirectory(
            Files.createDirectories(Path.of("target/test-data")).toAbsolutePath(),
            "preempt-nodes-");
    GpuqCluster cluster = new GpuqCluster(PostgresSupport.freshDatabase(), root);
    try (GpuqCluster.Node a = cluster.start("node-a", args());
        GpuqCluster.Node b = cluster.start("node-b", args())) {
      JdbcTemplate jdbc = new JdbcTemplate(a.context().getBean(DataSource.class));
      HttpApi alice = a.api().as(ALICE);
      HttpApi bob = b.api().as(BOB);
      String preemptible =
          aJob()
              .gpus(1)
              .command("sleep", "300")
              .field("preemptible", true)
              .field("preemptGrace", "PT5S")
              .json();
      List<String> alices = List.of(alice.submit(preemptible), alice.submit(preemptible));
      try {
        await()
            .atMost(SOON)
            .until(
                () ->
                    jdbc.queryForObject(
                            "select count(distinct node) from jobs where owner = 'alice'"
                                + " and state = 'RUNNING'",
                            Long.class)
                        == 2);
        Thread.sleep(1_500); // past their minimum runtime

        String bobs = bob.submit(aJob().gpus(1).command("sleep", "2").json());

        await().atMost(SOON).until(() -> bob.state(bobs).equals("SUCCEEDED"));
        // Let any second preemption, were there one, show itself.
        Thread.sleep(2_000);
        assertThat(
                jdbc.queryForObject(
                    "select count(*) from job_attempts where outcome = 'PREEMPTED'", Long.class))
            .isEqualTo(1);
        assertThat(bob.job(bobs).get("attempts")).hasSize(1);
        long preempted =
            alices.stream()
                .filter(
                    id ->
                        alice
                            .job(id)
                            .get("attempts")
                            .get(0)
                            .path("outcome")
                            .asString("")
                            .equals("PREEMPTED"))
                .count();
        assertThat(preempted).isEqualTo(1);
        assertThat(
                jdbc.queryForObject(
                    "select count(*) from jobs where owner = 'alice' and requeues = 1", Long.class))
            .isEqualTo(1);
      } finally {
        // Closing a node leaves its workers running, as on a real node: end them first.
        for (String id : alices) {
          alice.post("/api/v1/jobs/" + id + "/cancel");
        }
        await()
            .atMost(SOON)
            .until(() -> alices.stream().allMatch(id -> alice.state(id).equals("CANCELLED")));
      }
    }
  }
}
