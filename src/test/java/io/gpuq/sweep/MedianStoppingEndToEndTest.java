package io.gpuq.sweep;

import static io.gpuq.sweep.TrainerSweep.aTrainerSweep;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.gpuq.support.IntegrationTest;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

/**
 * A random sweep whose bad trials (quality below 0.5) report a loss 1 higher than the good ones at
 * every step, and step slowly, so that they are still running when the good ones have completed.
 * The good trials all report the same loss, so none of them is ever worse than their median.
 */
@DisplayName("A random sweep with median stopping prunes its bad trials and stops their processes")
class MedianStoppingEndToEndTest extends IntegrationTest {

  private static final int TRIALS = 8;
  private static final int STEPS = 200;

  @Test
  void bad_trials_end_pruned_with_their_processes_gone_and_good_ones_succeed() throws Exception {
    Path pids = Files.createTempDirectory(dataDir(), "pids-");
    SweepCalls sweeps = new SweepCalls(alice);
    String id =
        sweeps
            .create(
                aTrainerSweep()
                    .name("median-e2e")
                    .range("quality", 0, 1)
                    .random(TRIALS, 42)
                    .medianStopping(2, 1)
                    .steps(STEPS)
                    // A bad trial would take a minute to complete: far longer than it takes the
                    // good ones to complete and the rule to catch it.
                    .option("bad-step-seconds", 0.3)
                    .option("pid-dir", pids)
                    .json())
            .get("id")
            .asString();
    List<JsonNode> trials = sweeps.trials(id, "order=created");
    List<JsonNode> bad = trials.stream().filter(MedianStoppingEndToEndTest::isBad).toList();
    assertThat(bad).as("seed 42 draws bad trials").isNotEmpty();
    assertThat(trials.size() - bad.size())
        .as("seed 42 draws two good trials or more")
        .isGreaterThanOrEqualTo(2);

    await()
        .atMost(Duration.ofSeconds(180))
        .pollInterval(Duration.ofMillis(500))
        .until(() -> sweeps.state(id).equals("DONE"));

    for (JsonNode row : sweeps.trials(id, "order=created")) {
      String jobId = row.get("jobId").asString();
      JsonNode job = alice.job(jobId);
      int trial = row.get("trial").asInt();
      if (isBad(row)) {
        assertThat(job.get("state").asString()).as("bad trial %d", trial).isEqualTo("PRUNED");
        assertThat(sweeps.steps(jobId)).as("bad trial %d", trial).hasSizeLessThan(STEPS);
        long workerPid = job.get("attempts").get(0).get("pid").asLong();
        long trainerPid = Long.parseLong(Files.readString(pids.resolve(trial + ".pid")).strip());
        await()
            .atMost(Duration.ofSeconds(30))
            .untilAsserted(
                () ->
                    assertThat(List.of(workerPid, trainerPid))
                        .as("processes of pruned trial %d", trial)
                        .allMatch(pid -> !Files.exists(Path.of("/proc", Long.toString(pid)))));
      } else {
        assertThat(job.get("state").asString()).as("good trial %d", trial).isEqualTo("SUCCEEDED");
        await()
            .atMost(Duration.ofSeconds(30))
            .untilAsserted(
                () -> assertThat(sweeps.steps(jobId)).as("good trial %d", trial).hasSize(STEPS));
      }
    }
    JsonNode sweep = sweeps.sweep(id);
    assertThat(sweep.get("trials").get("PRUNED").asInt()).isEqualTo(bad.size());
    assertThat(sweep.get("trials").get("SUCCEEDED").asInt()).isEqualTo(TRIALS - bad.size());
  }

  private static boolean isBad(JsonNode trialRow) {
    return trialRow.get("parameters").get("quality").asDouble() < 0.5;
  }
}
