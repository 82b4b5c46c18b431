package io.gpuq.recovery;

import static io.gpuq.support.JobJson.aJob;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.gpuq.job.FailureReason;
import io.gpuq.job.JobTransition;
import io.gpuq.launch.ProcessSignals;
import io.gpuq.storage.TransitionMoves;
import io.gpuq.support.GpuqProcess;
import io.gpuq.support.HttpApi;
import io.gpuq.support.IntegrationTier;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

@IntegrationTier
@DisplayName("A gpuq killed with SIGKILL loses no job and runs none twice")
class CrashRecoveryTest {

  private static final String TOKEN = "crash-token-0123456789";

  @Test
  void every_job_reaches_exactly_one_terminal_state_with_its_real_exit_code() throws Exception {
    Path dataDir =
        Files.createTempDirectory(
            Files.createDirectories(Path.of("target/test-data")).toAbsolutePath(), "crash-");
    Path ran = dataDir.resolve("ran.txt");
    // Gates, not sleeps: on a loaded machine a 3-second job could end before the crash, and a
    // 45-second one before the restart, which is not what either is here to test.
    Path releaseWhileDown = dataDir.resolve("release-while-down");
    Path releaseAfterRestart = dataDir.resolve("release-after-restart");
    List<String> ids = new ArrayList<>();
    Map<String, Integer> expectedCode = new java.util.HashMap<>();
    String lost;
    String unrecordedShort;
    String unrecordedLong;
    String stale;
    long stalePid;
    Map<String, Long> unrecordedPids = new java.util.HashMap<>();

    try (GpuqProcess first = GpuqProcess.start(dataDir, TOKEN, "--gpuq.scheduler.cpu-slots=24")) {
      HttpApi api = first.api(TOKEN);
      for (int i = 0; i < 20; i++) {
        // Half end while gpuq is down (their wrapper records the exit), half outlive the restart.
        Path gate = i % 2 == 0 ? releaseWhileDown : releaseAfterRestart;
        int code = i % 4 < 2 ? 0 : 3;
        String id =
            api.submit(
                aJob()
                    .shell(
                        "until [ -e "
                            + gate
                            + " ]; do sleep 0.1; done; echo $GPUQ_JOB_ID >> "
                            + ran
                            + "; exit "
                            + code)
                    .json());
        ids.add(id);
        expectedCode.put(id, code);
      }
      lost = api.submit(aJob().command("sleep", "300").json());
      unrecordedShort = ids.get(0);
      unrecordedLong = ids.get(1);
      stale = api.submit(aJob().command("sleep", "300").json());
      await()
          .atMost(Duration.ofSeconds(60))
          .until(
              () ->
                  running(api, ids)
                      && api.state(lost).equals("RUNNING")
                      && api.state(stale).equals("RUNNING"));
      long lostPid = api.job(lost).get("attempts").get(0).get("pid").asLong();
      stalePid = api.job(stale).get("attempts").get(0).get("pid").asLong();
      for (String id : List.of(unrecordedShort, unrecordedLong)) {
        unrecordedPids.put(id, api.job(id).get("attempts").get(0).get("pid").asLong());
      }

      first.crash();

      // While gpuq is down, one worker dies without a trace: no exit file can be written.
      ProcessSignals.signalGroup(lostPid, ProcessSignals.SIGKILL);
      // Two jobs look as if gpuq died between spawning their workers and writing their PIDs to
      // the database: one that ends while gpuq is down, one that outlives the restart.
      forgetPids(dataDir, List.of(unrecordedShort, unrecordedLong, stale));
      // And while this node was down, another node declared one of its jobs lost (and ran it
      // elsewhere): that worker must not go on here.
      declareLost(dataDir, stale);
      Files.createFile(releaseWhileDown);
    }

    try (GpuqProcess second = GpuqProcess.start(dataDir, TOKEN, "--gpuq.scheduler.cpu-slots=24")) {
      HttpApi api = second.api(TOKEN);
      Files.createFile(releaseAfterRestart);
      await()
          .atMost(Duration.ofSeconds(90))
          .pollInterval(Duration.ofMillis(500))
          .until(() -> ids.stream().allMatch(id -> terminal(api.state(id))));

      for (String id : ids) {
        JsonNode job = api.job(id);
        int code = expectedCode.get(id);
        assertThat(job.get("state").asString())
            .as(id)
            .isEqualTo(code == 0 ? "SUCCEEDED" : "FAILED");
        assertThat(job.get("exitCode").asInt()).as(id).isEqualTo(code);
        assertThat(job.get("attempts")).as(id).hasSize(1);
      }
      Map<String, Long> runs =
          Files.readAllLines(ran).stream()
              .collect(Collectors.groupingBy(Function.identity(), Collectors.counting()));
      assertThat(runs.keySet()).containsExactlyInAnyOrderElementsOf(ids);
      assertThat(runs.values()).allMatch(count -> count == 1);

      // Re-adopted (or its exit read) through the process file, and its PID recorded again.
      unrecordedPids.forEach(
          (id, pid) ->
              assertThat(api.job(id).get("attempts").get(0).get("pid").asLong())
                  .as(id)
                  .isEqualTo(pid));

      await()
          .atMost(Duration.ofSeconds(20))
          .untilAsserted(() -> assertThat(ProcessHandle.of(stalePid)).as("stale worker").isEmpty());
      assertThat(api.job(stale).get("failureReason").asString()).isEqualTo("LOST");

      JsonNode vanished = api.job(lost);
      assertThat(vanished.get("state").asString()).isEqualTo("FAILED");
      assertThat(vanished.get("failureReason").asString()).isEqualTo("LOST");
    }
  }

  /** Erases these jobs' worker PIDs from gpuq's H2 database, which no gpuq has open now. */
  private static void forgetPids(Path dataDir, List<String> jobIds) throws Exception {
    try (Connection db = h2(dataDir);
        PreparedStatement forget =
            db.prepareStatement(
                "update job_attempts set pid = null, pid_start_ticks = null where job_id = ?")) {
      for (String id : jobIds) {
        forget.setString(1, id);
        assertThat(forget.executeUpdate()).as(id).isEqualTo(1);
      }
    }
  }

  /**
   * What another node's reaper writes for a job of a silent node with no attempts left: the
   * transition's own SQL.
   */
  private static void declareLost(Path dataDir, String jobId) throws Exception {
    try (Connection db = h2(dataDir)) {
      int[] rows =
          TransitionMoves.move(
              db,
              JobTransition.FAIL,
              jobId,
              JobTransition.Change.end(
                  null, FailureReason.LOST, "its node fell silent", Instant.now()));
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

  private static boolean running(HttpApi api, List<String> ids) {
    return ids.stream().allMatch(id -> api.state(id).equals("RUNNING"));
  }

  private static boolean terminal(String state) {
    return state.equals("SUCCEEDED") || state.equals("FAILED") || state.equals("CANCELLED");
  }
}
