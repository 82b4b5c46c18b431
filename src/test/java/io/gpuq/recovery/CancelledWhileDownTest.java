package io.gpuq.recovery;

import static io.gpuq.support.JobJson.aJob;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.gpuq.job.Job;
import io.gpuq.job.JobTransition;
import io.gpuq.storage.TransitionMoves;
import io.gpuq.support.GpuqProcess;
import io.gpuq.support.HttpApi;
import io.gpuq.support.IntegrationTier;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

@IntegrationTier
@DisplayName("A worker whose job was cancelled while gpuq was down is stopped when gpuq comes back")
class CancelledWhileDownTest {

  private static final String TOKEN = "cancelled-while-down-token-0123";
  private static final Duration LONG = Duration.ofMinutes(2);

  @Test
  void its_process_is_gone_its_log_says_why_and_the_job_stays_cancelled() throws Exception {
    Path dataDir =
        Files.createTempDirectory(
            Files.createDirectories(Path.of("target/test-data")).toAbsolutePath(), "cancelled-");
    String cancelled;
    String running;
    long cancelledPid;
    long runningPid;

    try (GpuqProcess first = GpuqProcess.start(dataDir, TOKEN)) {
      HttpApi api = first.api(TOKEN);
      cancelled = api.submit(aJob().command("sleep", "300").json());
      running = api.submit(aJob().command("sleep", "300").json());
      await()
          .atMost(LONG)
          .until(
              () ->
                  api.state(cancelled).equals("RUNNING")
                      && api.state(running).equals("RUNNING")
                      && hasPid(api.job(cancelled))
                      && hasPid(api.job(running)));
      cancelledPid = pidOf(api.job(cancelled));
      runningPid = pidOf(api.job(running));
      first.crash();
    }

    // As a cancel through another node writes it, while no gpuq here watches the worker.
    cancelInTheDatabase(dataDir, cancelled);
    assertThat(exited(cancelledPid)).as("the worker outlives gpuq's crash").isFalse();

    try (GpuqProcess second = GpuqProcess.start(dataDir, TOKEN)) {
      HttpApi api = second.api(TOKEN);
      await().atMost(LONG).until(() -> exited(cancelledPid));

      JsonNode job = api.job(cancelled);
      assertThat(job.get("state").asString()).isEqualTo("CANCELLED");
      assertThat(job.get("failureReason").isNull()).isTrue();
      assertThat(job.get("attempts")).hasSize(1);
      assertThat(job.get("attempts").get(0).get("outcome").asString()).isEqualTo("CANCELLED");
      await()
          .atMost(LONG)
          .until(
              () ->
                  Files.readString(dataDir.resolve("jobs").resolve(cancelled).resolve("output.log"))
                      .endsWith("=== gpuq: stopped: cancelled by the user ===\n"));

      // The job that still runs here is taken back, not stopped with it.
      assertThat(api.state(running)).isEqualTo("RUNNING");
      assertThat(exited(runningPid)).isFalse();
      api.post("/api/v1/jobs/" + running + "/cancel");
      await().atMost(LONG).until(() -> exited(runningPid));
    }
  }

  /**
   * What {@code CANCEL_RUNNING} writes (the job and its open attempt end as {@code CANCELLED}), in
   * gpuq's H2 database, which no gpuq has open now: the transition's own SQL.
   */
  private static void cancelInTheDatabase(Path dataDir, String jobId) throws Exception {
    try (Connection db = h2(dataDir)) {
      int[] rows =
          TransitionMoves.move(
              db,
              JobTransition.CANCEL_RUNNING,
              jobId,
              JobTransition.Change.end(null, null, Job.CANCEL_MESSAGE, Instant.now()));
      assertThat(rows[0]).isEqualTo(1);
      assertThat(rows[1]).isEqualTo(1);
    }
  }

  private static Connection h2(Path dataDir) throws Exception {
    return DriverManager.getConnection(
        "jdbc:h2:file:"
            + dataDir.resolve("db/gpuq")
            + ";MODE=PostgreSQL;DATABASE_TO_LOWER=TRUE;DEFAULT_NULL_ORDERING=HIGH",
        "sa",
        "");
  }

  private static boolean hasPid(JsonNode job) {
    JsonNode pid = job.get("attempts").get(0).get("pid");
    return pid != null && !pid.isNull();
  }

  private static long pidOf(JsonNode job) {
    return job.get("attempts").get(0).get("pid").asLong();
  }

  /**
   * Whether the process has ended: {@code /proc/<pid>} is gone, or it is a zombie, ended and only
   * waiting for init to reap it (gpuq, its parent, was killed).
   */
  private static boolean exited(long pid) throws Exception {
    Path stat = Path.of("/proc", Long.toString(pid), "stat");
    try {
      String fields = Files.readString(stat);
      return fields.substring(fields.lastIndexOf(')') + 2).startsWith("Z");
    } catch (java.nio.file.NoSuchFileException e) {
      return true;
    }
  }
}
