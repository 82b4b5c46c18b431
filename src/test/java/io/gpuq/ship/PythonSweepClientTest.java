package io.gpuq.ship;

import io.gpuq.support.IntegrationTest;
import java.io.IOException;
import java.util.Map;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * Runs clients/python/test_sweeps.py against a real gpuq: the client's create_sweep, wait_sweep,
 * trials, best, external trials and metrics, and the ask/tell example
 * (clients/python/examples/optuna_style.py) driving an external sweep with real trial processes.
 */
@DisplayName("clients/python sweeps and the ask/tell example against a live gpuq")
class PythonSweepClientTest extends IntegrationTest {

  private static final long TIMEOUT_SECONDS = 300;

  @Test
  void unittestPasses() throws IOException, InterruptedException {
    PythonUnittest.passes(
        "clients/python/test_sweeps.py",
        dataDir(),
        Map.of("GPUQ_URL", "http://127.0.0.1:" + port, "GPUQ_TOKEN", ALICE_TOKEN),
        TIMEOUT_SECONDS);
  }
}
