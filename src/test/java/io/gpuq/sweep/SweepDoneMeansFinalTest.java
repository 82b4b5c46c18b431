package io.gpuq.sweep;

import static io.gpuq.sweep.TrainerSweep.aTrainerSweep;
import static io.gpuq.sweep.TrainerSweep.valLoss;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;
import static org.awaitility.Awaitility.await;

import io.gpuq.support.GpuqProcess;
import io.gpuq.support.IntegrationTier;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

/**
 * A notebook reads the best trial as soon as {@code wait_sweep} sees the sweep DONE. With a poll
 * far longer than the trial, this gpuq has read nothing of its metrics when the trial ends: DONE
 * must still mean that what the trials reported is in the sweep's answer.
 */
@IntegrationTier
@DisplayName("A sweep seen DONE shows what its trials reported, however long the poll")
class SweepDoneMeansFinalTest {

  private static final String TOKEN = "sweep-done-token-0123456789";
  private static final int STEPS = 5;

  @Test
  void the_best_trial_is_there_as_soon_as_the_sweep_is_done() throws Exception {
    Path dataDir =
        Files.createTempDirectory(
            Files.createDirectories(Path.of("target/test-data")).toAbsolutePath(), "sweep-done-");
    try (GpuqProcess gpuq = GpuqProcess.start(dataDir, TOKEN, "--gpuq.gpu.poll-interval=15s")) {
      SweepCalls sweeps = new SweepCalls(gpuq.api(TOKEN));
      String id =
          sweeps
              .create(aTrainerSweep().grid("lr", 0.003).grid("layers", 3).steps(STEPS).json())
              .get("id")
              .asString();

      await()
          .atMost(Duration.ofSeconds(120))
          .pollInterval(Duration.ofMillis(100))
          .until(() -> sweeps.state(id).equals("DONE"));

      JsonNode best = sweeps.sweep(id).get("best");
      assertThat(best).as("best of the DONE sweep").isNotNull();
      assertThat(best.isNull()).as("best of the DONE sweep is null").isFalse();
      assertThat(best.get("step").asLong()).isEqualTo(STEPS - 1);
      assertThat(best.get("value").asDouble())
          .isCloseTo(valLoss(0.003, 3, 1, STEPS - 1), within(1e-9));
    }
  }
}
