package io.gpuq.node;

import static io.gpuq.job.JobBuilder.aQueuedJob;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.gpuq.job.JobStore;
import io.gpuq.job.SweepTrial;
import io.gpuq.support.GpuqCluster;
import io.gpuq.support.IntegrationTier;
import io.gpuq.support.PostgresSupport;
import io.gpuq.support.SweepRows;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import javax.sql.DataSource;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.springframework.jdbc.core.JdbcTemplate;

@IntegrationTier
@DisplayName("A sweep's maxConcurrent on two nodes claiming its trials at once")
class MaxConcurrentAcrossNodesTest {

  // Two slots per node: reaching the limit of three takes both nodes running trials at once.
  private static final int LIMIT = 3;
  private static final int TRIALS = 9;

  @Test
  void is_never_exceeded_and_every_trial_runs_once() throws Exception {
    Path root =
        Files.createTempDirectory(
            Files.createDirectories(Path.of("target/test-data")).toAbsolutePath(),
            "max-concurrent-");
    GpuqCluster cluster = new GpuqCluster(PostgresSupport.freshDatabase(), root);
    try (GpuqCluster.Node a = cluster.start("node-a", "--gpuq.scheduler.cpu-slots=2");
        GpuqCluster.Node b = cluster.start("node-b", "--gpuq.scheduler.cpu-slots=2")) {
      DataSource dataSource = a.context().getBean(DataSource.class);
      JobStore store = a.context().getBean(JobStore.class);
      String sweep = new SweepRows(dataSource).sweep(LIMIT, null);
      JdbcTemplate jdbc = new JdbcTemplate(dataSource);
      for (int n = 0; n < TRIALS; n++) {
        aQueuedJob()
            .ownedBy("cluster")
            .trialOf(new SweepTrial(sweep, n, "{}"))
            .spec(s -> s.command("sleep", "2").gpus(0))
            .in(store);
      }

      AtomicLong mostRunning = new AtomicLong();
      await()
          .atMost(Duration.ofSeconds(60))
          .pollInterval(Duration.ofMillis(10))
          .until(
              () -> {
                mostRunning.accumulateAndGet(count(jdbc, sweep, "RUNNING"), Math::max);
                return count(jdbc, sweep, "QUEUED") + count(jdbc, sweep, "RUNNING") == 0;
              });

      assertThat(count(jdbc, sweep, "SUCCEEDED")).isEqualTo(TRIALS);
      assertThat(mostRunning.get()).isEqualTo(LIMIT);
      List<Integer> attempts =
          jdbc.queryForList(
              "select count(*) from job_attempts a join jobs j on j.id = a.job_id"
                  + " where j.sweep_id = ? group by j.id",
              Integer.class,
              sweep);
      assertThat(attempts).hasSize(TRIALS).containsOnly(1);
      assertThat(
              jdbc.queryForList(
                  "select distinct node from jobs where sweep_id = ?", String.class, sweep))
          .as("both nodes took trials")
          .containsExactlyInAnyOrder("node-a", "node-b");
    }
  }

  private static long count(JdbcTemplate jdbc, String sweep, String state) {
    return jdbc.queryForObject(
        "select count(*) from jobs where sweep_id = ? and state = ?", Long.class, sweep, state);
  }
}
