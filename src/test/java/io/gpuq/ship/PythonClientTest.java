package io.gpuq.ship;

import static org.assertj.core.api.Assertions.assertThat;

import io.gpuq.support.IntegrationTest;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * Runs the Python client's own tests (clients/python/test_gpuq.py, unittest) against a real gpuq:
 * this one, on its random port, with its emulated GPUs, as the submitter alice (and bob for "not
 * your job"). Needs python3 on the PATH; the client uses the standard library only.
 */
@DisplayName("clients/python against a live gpuq")
class PythonClientTest extends IntegrationTest {

  private static final long TIMEOUT_SECONDS = 180;

  @Test
  void unittestPasses() throws IOException, InterruptedException {
    Path output = Files.createTempFile(dataDir(), "python-client-", ".log");
    ProcessBuilder builder =
        new ProcessBuilder(
                List.of("python3", "-m", "unittest", "-v", "clients/python/test_gpuq.py"))
            .directory(Repo.root().toFile())
            .redirectErrorStream(true)
            .redirectOutput(output.toFile());
    Map<String, String> env = builder.environment();
    env.put("GPUQ_URL", "http://127.0.0.1:" + port);
    env.put("GPUQ_TOKEN", ALICE_TOKEN);
    env.put("GPUQ_OTHER_TOKEN", BOB_TOKEN);
    env.put("PYTHONDONTWRITEBYTECODE", "1");
    env.put("PYTHONUNBUFFERED", "1");
    env.put("TMPDIR", dataDir().toString());
    env.remove("GPUQ_TOKEN_FILE");

    Process python;
    try {
      python = builder.start();
    } catch (IOException e) {
      throw new AssertionError("python3 is needed for this test (apt-get install python3)", e);
    }
    boolean exited = python.waitFor(TIMEOUT_SECONDS, TimeUnit.SECONDS);
    if (!exited) {
      python.destroyForcibly().waitFor();
    }
    String log = Files.readString(output, StandardCharsets.UTF_8);

    assertThat(exited).as("python finished within %d s:%n%s", TIMEOUT_SECONDS, log).isTrue();
    assertThat(python.exitValue()).as("python3 -m unittest exit status:%n%s", log).isZero();
    assertThat(log).as(log).contains("OK").doesNotContain("skipped 'set GPUQ_URL");
  }
}
