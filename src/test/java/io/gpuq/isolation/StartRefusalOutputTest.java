package io.gpuq.isolation;

import static org.assertj.core.api.Assertions.assertThat;

import io.gpuq.support.GpuqProcess;
import io.gpuq.support.IntegrationTier;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** What an operator reads when gpuq refuses its configuration: one short block, no stack trace. */
@IntegrationTier
@DisplayName("A refusal to start")
class StartRefusalOutputTest {

  private static final Duration EXIT = Duration.ofMinutes(3);

  @Test
  @DisplayName("prints what is wrong and what to do in one short block, with no stack trace")
  void printsOneShortBlockWithoutAStackTrace() throws Exception {
    Path dataDir = Files.createTempDirectory(Path.of("/tmp"), "gpuq-refusal-");

    GpuqProcess.Exited exited =
        GpuqProcess.runToExit(
            List.of(),
            dataDir,
            "refusal-admin-0123456789",
            EXIT,
            "--gpuq.auth.tokens[0].run-as=no-such-account-gpuq");

    assertThat(exited.exitCode()).isNotZero();
    String output = exited.output();
    assertThat(output)
        .contains("APPLICATION FAILED TO START")
        .contains(
            "gpuq refuses to start: the run-as of token 'crash'=no-such-account-gpuq: this"
                + " machine has no account of that name.")
        .contains("Action:")
        .contains("Create it (useradd --system");
    assertThat(output)
        .as("no stack trace:\n%s", output)
        .doesNotContain("\tat ")
        .doesNotContain("Caused by")
        .doesNotContain("Exception");
  }
}
