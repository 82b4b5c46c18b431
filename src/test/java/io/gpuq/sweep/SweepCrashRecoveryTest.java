package io.gpuq.sweep;

import static io.gpuq.sweep.TrainerSweep.aTrainerSweep;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.gpuq.support.GpuqProcess;
import io.gpuq.support.IntegrationTier;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Collectors;
import java.util.stream.LongStream;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

/**
 * Four trials, two CPU slots: two trials run and two wait when gpuq is killed. The running ones
 * report steps 0 to 4, then wait for a gate that the test opens while gpuq is down, and report
 * steps 5 to 9 and end before it comes back.
 */
@IntegrationTier
@DisplayName("A gpuq killed with SIGKILL mid-sweep ends every trial once and reads what was missed")
class SweepCrashRecoveryTest {

  private static final String TOKEN = "sweep-crash-token-0123456789";
  private static final int STEPS = 10;
  private static final int HOLD_AFTER = 4;

  @Test
  void every_trial_ends_once_and_metrics_reported_while_down_are_read_after_the_restart()
      throws Exception {
    Path dataDir =
        Files.createTempDirectory(
            Files.createDirectories(Path.of("target/test-data")).toAbsolutePath(), "sweep-crash-");
    Path gate = dataDir.resolve("release");
    Path ran = dataDir.resolve("ran.txt");
    String sweep =
        aTrainerSweep()
            .name("crash-e2e")
            .grid("layers", 1, 2, 3, 4)
            .steps(STEPS)
            .option("hold-after", HOLD_AFTER)
            .option("gate", gate)
            .option("ran", ran)
            .json();
    String id;
    List<String> endedWhileDown;

    try (GpuqProcess first = GpuqProcess.start(dataDir, TOKEN, "--gpuq.scheduler.cpu-slots=2")) {
      SweepCalls sweeps = new SweepCalls(first.api(TOKEN));
      id = sweeps.create(sweep).get("id").asString();
      await()
          .atMost(Duration.ofSeconds(120))
          .pollInterval(Duration.ofMillis(250))
          .until(() -> heldTrials(sweeps, id).size() == 2);
      endedWhileDown = heldTrials(sweeps, id);
      assertThat(sweeps.sweep(id).get("trials").get("QUEUED").asInt()).isEqualTo(2);

      first.crash();

      Files.createFile(gate);
      await()
          .atMost(Duration.ofSeconds(60))
          .until(() -> Files.exists(ran) && Files.readAllLines(ran).size() == 2);
      assertThat(Files.readAllLines(ran)).containsExactlyInAnyOrderElementsOf(endedWhileDown);
    }

    try (GpuqProcess second = GpuqProcess.start(dataDir, TOKEN, "--gpuq.scheduler.cpu-slots=2")) {
      SweepCalls sweeps = new SweepCalls(second.api(TOKEN));
      await()
          .atMost(Duration.ofSeconds(120))
          .pollInterval(Duration.ofMillis(500))
          .until(() -> sweeps.state(id).equals("DONE"));

      List<JsonNode> trials = sweeps.trials(id, "order=created");
      assertThat(trials).hasSize(4);
      List<Long> everyStep = LongStream.range(0, STEPS).boxed().toList();
      for (JsonNode row : trials) {
        String jobId = row.get("jobId").asString();
        JsonNode job = second.api(TOKEN).job(jobId);
        assertThat(job.get("state").asString()).as(jobId).isEqualTo("SUCCEEDED");
        assertThat(job.get("exitCode").asInt()).as(jobId).isZero();
        assertThat(job.get("attempts")).as("attempts of %s", jobId).hasSize(1);
        // Read in file order: once the last step is in, a step missed or read twice would show.
        await()
            .atMost(Duration.ofSeconds(30))
            .until(() -> sweeps.steps(jobId).contains((long) STEPS - 1));
        assertThat(sweeps.steps(jobId)).as("steps read of %s", jobId).isEqualTo(everyStep);
      }
      assertThat(sweeps.sweep(id).get("trials").get("SUCCEEDED").asInt()).isEqualTo(4);
      Map<String, Long> runs =
          Files.readAllLines(ran).stream()
              .collect(Collectors.groupingBy(Function.identity(), Collectors.counting()));
      assertThat(runs.keySet())
          .containsExactlyInAnyOrderElementsOf(
              trials.stream().map(row -> row.get("jobId").asString()).toList());
      assertThat(runs.values()).as("runs per trial").allMatch(count -> count == 1);
    }
  }

  /** The trials that run and have reported up to the step where they wait for the gate. */
  private static List<String> heldTrials(SweepCalls sweeps, String id) {
    return sweeps.trials(id, "state=RUNNING").stream()
        .filter(row -> row.path("step").isNumber() && row.get("step").asLong() == HOLD_AFTER)
        .map(row -> row.get("jobId").asString())
        .toList();
  }
}
