package io.gpuq.ship;

import io.gpuq.support.IntegrationTest;
import java.io.IOException;
import java.util.Map;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * Runs the Python client's own tests (clients/python/test_gpuq.py, unittest) against a real gpuq:
 * this one, on its random port, with its emulated GPUs, as the submitter alice (and bob for "not
 * your job").
 */
@DisplayName("clients/python against a live gpuq")
class PythonClientTest extends IntegrationTest {

  private static final long TIMEOUT_SECONDS = 180;

  @Test
  void unittestPasses() throws IOException, InterruptedException {
    PythonUnittest.passes(
        "clients/python/test_gpuq.py",
        dataDir(),
        Map.of(
            "GPUQ_URL", "http://127.0.0.1:" + port,
            "GPUQ_TOKEN", ALICE_TOKEN,
            "GPUQ_OTHER_TOKEN", BOB_TOKEN),
        TIMEOUT_SECONDS);
  }
}
