package io.gpuq.isolation;

import static org.assertj.core.api.Assertions.assertThat;

import io.gpuq.support.GpuqProcess;
import io.gpuq.support.IntegrationTier;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** What an operator reads when gpuq refuses its configuration: one short block, no stack trace. */
@IntegrationTier
@DisplayName("A refusal to start")
class StartRefusalOutputTest {

  private static final Duration EXIT = Duration.ofMinutes(3);

  @ParameterizedTest(name = "{0}")
  @DisplayName("prints what is wrong and what to do in one short block, with no stack trace")
  @CsvSource(
      delimiter = '|',
      value = {
        "--gpuq.auth.tokens[0].run-as=no-such-account-gpuq"
            + "|the run-as of token 'crash'=no-such-account-gpuq: this machine has no account of"
            + " that name."
            + "|Create it (useradd --system",
        "--gpuq.storage.min-free=plenty"
            + "|gpuq.storage.min-free=plenty is no size"
            + "|Give a size such as 1GiB or 500MiB, or 0 to turn the check off.",
        "--gpuq.node.reserved-cpus=100000"
            + "|gpuq.node.reserved-cpus=100000 leaves no core to jobs: this node gives gpuq"
            + "|Set gpuq.node.reserved-cpus below"
      })
  void printsOneShortBlockWithoutAStackTrace(String setting, String problem, String action)
      throws Exception {
    Path dataDir = Files.createTempDirectory(Path.of("/tmp"), "gpuq-refusal-");

    GpuqProcess.Exited exited =
        GpuqProcess.runToExit(List.of(), dataDir, "refusal-admin-0123456789", EXIT, setting);

    assertThat(exited.exitCode()).isNotZero();
    String output = exited.output();
    assertThat(output)
        .contains("APPLICATION FAILED TO START")
        .contains("Description:\n\ngpuq refuses to start: " + problem)
        .contains("Action:\n\n" + action);
    assertThat(output)
        .as("no stack trace:\n%s", output)
        .doesNotContain("\tat ")
        .doesNotContain("Caused by")
        .doesNotContain("Exception");
  }
}
