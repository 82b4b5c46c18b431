package io.gpuq.ship;

import io.gpuq.support.IntegrationTest;
import java.io.IOException;
import java.util.Map;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * Runs the {@code gpuq} command's end-to-end tests (clients/python/test_cli.py) against a real
 * gpuq: every command as a separate process, its output, its exit codes (a job that exits 3, one
 * out of GPU memory, one cancelled by SIGINT to the command), {@code --json} and the collapsed
 * queue line of a sweep.
 */
@DisplayName("the gpuq command against a live gpuq")
class PythonCliTest extends IntegrationTest {

  private static final long TIMEOUT_SECONDS = 420;

  @Test
  void unittestPasses() throws IOException, InterruptedException {
    PythonUnittest.passes(
        "clients/python/test_cli.py",
        dataDir(),
        Map.of(
            "GPUQ_URL",
            "http://127.0.0.1:" + port,
            "GPUQ_TOKEN",
            ALICE_TOKEN,
            "GPUQ_ADMIN_TOKEN",
            ADMIN_TOKEN),
        TIMEOUT_SECONDS);
  }
}
