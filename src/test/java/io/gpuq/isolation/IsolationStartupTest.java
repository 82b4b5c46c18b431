package io.gpuq.isolation;

import static org.assertj.core.api.Assertions.assertThat;

import io.gpuq.support.GpuqProcess;
import io.gpuq.support.IntegrationTier;
import io.gpuq.support.OsAccounts;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIf;

/** A gpuq that could switch accounts, refusing at start what would fail or leak later. */
@IntegrationTier
@EnabledIf(value = "io.gpuq.support.OsAccounts#canCreate", disabledReason = OsAccounts.SKIPPED)
@DisplayName("gpuq as root refuses to start")
class IsolationStartupTest {

  private static final String TOKEN = "startup-admin-0123456789";
  private static final Duration EXIT = Duration.ofMinutes(3);

  @Test
  void where_the_jobs_account_could_not_reach_its_work_directory() throws Exception {
    OsAccounts.ensure("gpuq-it-alice");
    Path closed = Files.createTempDirectory(Path.of("/tmp"), "gpuq-closed-");
    Files.setPosixFilePermissions(closed, PosixFilePermissions.fromString("rwx------"));

    GpuqProcess.Exited exited =
        GpuqProcess.runToExit(
            List.of(),
            closed.resolve("data"),
            TOKEN,
            EXIT,
            "--gpuq.worker.run-as=gpuq-it-alice",
            "--gpuq.auth.tokens[0].run-as=gpuq-it-alice");

    assertThat(exited.exitCode()).isNotZero();
    assertThat(exited.output())
        .contains("cannot reach their work directories")
        .contains(closed + " (rwx------");
  }

  @Test
  void where_a_token_names_an_account_this_machine_lacks() throws Exception {
    Path dataDir = Files.createTempDirectory(Path.of("/tmp"), "gpuq-unknown-account-");

    GpuqProcess.Exited exited =
        GpuqProcess.runToExit(
            List.of(), dataDir, TOKEN, EXIT, "--gpuq.auth.tokens[0].run-as=no-such-account-gpuq");

    assertThat(exited.exitCode()).isNotZero();
    assertThat(exited.output())
        .contains("the run-as of token 'crash'=no-such-account-gpuq")
        .contains("useradd");
  }

  @Test
  void where_two_owners_would_share_the_default_account() throws Exception {
    Path dataDir = Files.createTempDirectory(Path.of("/tmp"), "gpuq-shared-default-");

    GpuqProcess.Exited exited =
        GpuqProcess.runToExit(
            List.of(),
            dataDir,
            TOKEN,
            EXIT,
            "--gpuq.worker.run-as=nobody",
            "--gpuq.auth.tokens[1].name=second",
            "--gpuq.auth.tokens[1].token=startup-second-0123456789");

    assertThat(exited.exitCode()).isNotZero();
    assertThat(exited.output())
        .contains("crash, second all run as uid 65534")
        .contains("gpuq.worker.allow-shared-account=true");
  }
}
