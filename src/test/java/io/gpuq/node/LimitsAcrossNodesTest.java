package io.gpuq.node;

import static io.gpuq.support.JobJson.aJob;
import static io.gpuq.support.SweepJson.aRandomSweep;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.gpuq.support.GpuqCluster;
import io.gpuq.support.HttpApi;
import io.gpuq.support.HttpApi.Response;
import io.gpuq.support.IntegrationTier;
import io.gpuq.support.PostgresSupport;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicLong;
import javax.sql.DataSource;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * An owner's limits with two nodes on one PostgreSQL: each node counts what every node's jobs hold
 * and queue, so neither the running limit nor the queued one is passed when both nodes start and
 * accept alice's jobs at once; bob, who has no limit, is not held up by hers.
 */
@IntegrationTier
@DisplayName("Limits per owner hold with two nodes on one PostgreSQL")
class LimitsAcrossNodesTest {

  private static final String ALICE = "limits-alice-0123456789";
  private static final String BOB = "limits-bob-0123456789ab";
  private static final int MAX_RUNNING = 2;
  private static final int MAX_QUEUED = 6;
  private static final Duration SOON = Duration.ofSeconds(90);

  private static String[] args() {
    return new String[] {
      // Three slots a node: six places, more than alice may take.
      "--gpuq.scheduler.cpu-slots=3",
      "--gpuq.worker.allow-shared-account=true",
      "--gpuq.auth.tokens[1].name=alice",
      "--gpuq.auth.tokens[1].token=" + ALICE,
      "--gpuq.auth.tokens[1].max-running-jobs=" + MAX_RUNNING,
      "--gpuq.auth.tokens[1].max-queued-jobs=" + MAX_QUEUED,
      "--gpuq.auth.tokens[2].name=bob",
      "--gpuq.auth.tokens[2].token=" + BOB
    };
  }

  @Test
  void neither_node_lets_alice_past_her_limits_nor_holds_bob_up() throws Exception {
    Path root =
        Files.createTempDirectory(
            Files.createDirectories(Path.of("target/test-data")).toAbsolutePath(), "limits-");
    GpuqCluster cluster = new GpuqCluster(PostgresSupport.freshDatabase(), root);
    try (GpuqCluster.Node a = cluster.start("node-a", args());
        GpuqCluster.Node b = cluster.start("node-b", args())) {
      JdbcTemplate jdbc = new JdbcTemplate(a.context().getBean(DataSource.class));
      List<HttpApi> alice = List.of(a.api().as(ALICE), b.api().as(ALICE));
      List<HttpApi> bob = List.of(a.api().as(BOB), b.api().as(BOB));

      // Two long jobs take alice's running limit; what she queues next stays queued.
      List<String> holding = new ArrayList<>();
      for (HttpApi node : alice) {
        holding.add(node.submit(aJob().cpuOnly().command("sleep", "300").json()));
      }
      await().atMost(SOON).until(() -> count(jdbc, "alice", "RUNNING") == MAX_RUNNING);

      // Twelve submissions at once, six to each node: exactly six fit under max-queued-jobs.
      ExecutorService pool = Executors.newFixedThreadPool(12);
      List<Future<Response>> answers = new ArrayList<>();
      for (int i = 0; i < 12; i++) {
        HttpApi node = alice.get(i % 2);
        Callable<Response> submit =
            () -> node.post("/api/v1/jobs", aJob().cpuOnly().command("true").json());
        answers.add(pool.submit(submit));
      }
      int accepted = 0;
      List<Response> refused = new ArrayList<>();
      for (Future<Response> answer : answers) {
        Response response = answer.get();
        if (response.status() == 201) {
          accepted++;
        } else {
          refused.add(response);
        }
      }
      pool.shutdown();
      assertThat(accepted).isEqualTo(MAX_QUEUED);
      assertThat(count(jdbc, "alice", "QUEUED")).isEqualTo(MAX_QUEUED);
      assertThat(refused).hasSize(12 - MAX_QUEUED);
      for (Response response : refused) {
        assertThat(response.status()).isEqualTo(429);
        assertThat(response.contentType()).startsWith("application/problem+json");
        assertThat(response.json().get("limit").asString()).isEqualTo("max-queued-jobs");
        assertThat(response.json().get("max").asLong()).isEqualTo(MAX_QUEUED);
        assertThat(response.json().get("queued").asLong()).isEqualTo(MAX_QUEUED);
        assertThat(response.json().get("requested").asLong()).isEqualTo(1);
      }

      // A sweep's trials count too: refused whole, nothing of it stored.
      Response sweep =
          alice
              .get(1)
              .post("/api/v1/sweeps", aRandomSweep(3).range("lr", 0.001, 0.1, null, null).json());
      assertThat(sweep.status()).isEqualTo(429);
      assertThat(sweep.json().get("requested").asLong()).isEqualTo(3);
      assertThat(jdbc.queryForObject("select count(*) from sweeps", Long.class)).isZero();

      // The queued jobs wait at alice's running limit, named as their reason.
      String queued =
          jdbc.queryForObject(
              "select id from jobs where owner = 'alice' and state = 'QUEUED' limit 1",
              String.class);
      await()
          .atMost(SOON)
          .until(
              () ->
                  alice.stream()
                      .anyMatch(
                          node ->
                              String.valueOf(node.job(queued).get("queuedReason"))
                                  .contains("at your limit of 2 running jobs (max-running-jobs)")));

      // Bob's jobs start beside alice's at once; then alice's two long jobs end, and her queued
      // ones run, never more than two at once over both nodes.
      List<String> bobs = new ArrayList<>();
      for (int i = 0; i < 3; i++) {
        bobs.add(bob.get(i % 2).submit(aJob().cpuOnly().command("sleep", "1").json()));
      }
      await()
          .atMost(SOON)
          .until(() -> bobs.stream().allMatch(id -> "SUCCEEDED".equals(bob.get(0).state(id))));
      holding.forEach(id -> alice.get(0).post("/api/v1/jobs/" + id + "/cancel"));
      AtomicLong mostRunning = new AtomicLong();
      await()
          .atMost(SOON)
          .pollInterval(Duration.ofMillis(10))
          .until(
              () -> {
                mostRunning.accumulateAndGet(count(jdbc, "alice", "RUNNING"), Math::max);
                // One statement: read apart, a job claimed between the two reads is in neither.
                return jdbc.queryForObject(
                        "select count(*) from jobs where owner = 'alice'"
                            + " and state in ('QUEUED', 'RUNNING')",
                        Long.class)
                    == 0;
              });
      assertThat(count(jdbc, "alice", "SUCCEEDED")).isEqualTo(MAX_QUEUED);
      assertThat(mostRunning.get()).isLessThanOrEqualTo(MAX_RUNNING);
    }
  }

  private static long count(JdbcTemplate jdbc, String owner, String state) {
    return jdbc.queryForObject(
        "select count(*) from jobs where owner = ? and state = ?", Long.class, owner, state);
  }
}
