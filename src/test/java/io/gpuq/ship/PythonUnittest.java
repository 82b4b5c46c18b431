package io.gpuq.ship;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Runs one of the Python client's unittest files (clients/python) against a live gpuq and asserts
 * that every test ran and passed: none skipped for want of a gpuq. Needs python3 on the PATH; the
 * client uses the standard library only.
 */
final class PythonUnittest {

  private PythonUnittest() {}

  /**
   * Whether python3 imports all these modules (a probe of at most 60 s, stdin closed): the tests
   * that need them are skipped, saying which, where .ci/run could not install them.
   */
  static boolean imports(Path scratch, String... modules) throws IOException, InterruptedException {
    Path output = Files.createTempFile(scratch, "python-probe-", ".log");
    ProcessBuilder builder =
        new ProcessBuilder(List.of("python3", "-c", "import " + String.join(", ", modules)))
            .redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")))
            .redirectErrorStream(true)
            .redirectOutput(output.toFile());
    Process probe;
    try {
      probe = builder.start();
    } catch (IOException e) {
      return false;
    }
    if (!probe.waitFor(60, TimeUnit.SECONDS)) {
      probe.destroyForcibly().waitFor();
      return false;
    }
    return probe.exitValue() == 0;
  }

  /**
   * @param file the test file, relative to the repository's root
   * @param scratch where the output and the tests' temporary files go
   * @param environment GPUQ_URL, GPUQ_TOKEN and whatever else the file reads
   */
  static void passes(
      String file, Path scratch, Map<String, String> environment, long timeoutSeconds)
      throws IOException, InterruptedException {
    Path output = Files.createTempFile(scratch, "python-client-", ".log");
    ProcessBuilder builder =
        new ProcessBuilder(List.of("python3", "-m", "unittest", "-v", file))
            .directory(Repo.root().toFile())
            .redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")))
            .redirectErrorStream(true)
            .redirectOutput(output.toFile());
    Map<String, String> env = builder.environment();
    env.putAll(environment);
    env.put("PYTHONDONTWRITEBYTECODE", "1");
    env.put("PYTHONUNBUFFERED", "1");
    env.put("TMPDIR", scratch.toString());
    env.remove("GPUQ_TOKEN_FILE");

    Process python;
    try {
      python = builder.start();
    } catch (IOException e) {
      throw new AssertionError("python3 is needed for this test (apt-get install python3)", e);
    }
    boolean exited = python.waitFor(timeoutSeconds, TimeUnit.SECONDS);
    if (!exited) {
      python.destroyForcibly().waitFor();
    }
    String log = Files.readString(output, StandardCharsets.UTF_8);

    assertThat(exited).as("python finished within %d s:%n%s", timeoutSeconds, log).isTrue();
    assertThat(python.exitValue()).as("python3 -m unittest exit status:%n%s", log).isZero();
    assertThat(log).as(log).contains("OK").doesNotContain("skipped 'set GPUQ_URL");
  }
}
