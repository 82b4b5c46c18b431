package io.gpuq.ship;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.gpuq.support.IntegrationTest;
import java.io.IOException;
import java.util.Map;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * Runs clients/python/test_optuna.py against a real gpuq and the real Optuna (issue 38): a TPE
 * study of 14 trials with the median pruner, 3 at once, as gpuq jobs of one external sweep; pruned
 * trials stopped in gpuq; the best value as Optuna has it; a driver killed with SIGKILL and started
 * again. Skipped, saying so, where python3 cannot import optuna (.ci/run installs it).
 */
@DisplayName("gpuq.optuna: an Optuna study's trials as gpuq jobs")
class PythonOptunaTest extends IntegrationTest {

  private static final long TIMEOUT_SECONDS = 240;

  @Test
  @DisplayName("TPE with the median pruner, a failed job, and a killed driver resumed")
  void unittestPasses() throws IOException, InterruptedException {
    assumeTrue(
        PythonUnittest.imports(dataDir(), "optuna"),
        "skipped: python3 cannot import optuna (.ci/run installs it from the package index)");
    PythonUnittest.passes(
        "clients/python/test_optuna.py",
        dataDir(),
        Map.of("GPUQ_URL", "http://127.0.0.1:" + port, "GPUQ_TOKEN", ALICE_TOKEN),
        TIMEOUT_SECONDS);
  }
}
