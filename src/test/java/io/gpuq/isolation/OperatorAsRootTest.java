package io.gpuq.isolation;

import static io.gpuq.support.JobJson.aJob;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.gpuq.support.GpuqProcess;
import io.gpuq.support.HttpApi;
import io.gpuq.support.IntegrationTier;
import io.gpuq.support.OsAccounts;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIf;
import tools.jackson.databind.JsonNode;

/**
 * The README as a root operator on a rented GPU machine follows it: in {@code /root} (a directory
 * closed to every other account), no token configured, {@code ./mvnw spring-boot:run}, then the
 * examples with {@code "workingDir": "$PWD"}. The jobs are the operator's own code, so they run as
 * gpuq's own account, as they would if gpuq ran as the operator.
 */
@IntegrationTier
@EnabledIf(value = "io.gpuq.support.OsAccounts#canCreate", disabledReason = OsAccounts.SKIPPED)
@DisplayName("gpuq started by root with no token configured")
class OperatorAsRootTest {

  private static final Duration JOB = Duration.ofSeconds(90);

  private static Path aDirectoryLikeRootsHome(Path parent, String prefix) throws Exception {
    Path dir = Files.createTempDirectory(parent, prefix);
    Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwx------"));
    return dir;
  }

  @Test
  @DisplayName(
      "starts from a 0700 directory of root's and runs the operator's job in another as root")
  void startsInAClosedDirectoryAndRunsTheOperatorsJobsThere() throws Exception {
    Path home = aDirectoryLikeRootsHome(Path.of("/tmp"), "gpuq-root-home-");
    Path experiment = aDirectoryLikeRootsHome(home, "exp-");

    try (GpuqProcess gpuq = GpuqProcess.startAsOperatorIn(home)) {
      String token = Files.readString(home.resolve("data/admin.token")).trim();
      HttpApi operator = gpuq.api(token);

      Files.writeString(experiment.resolve("input"), "the operator's data\n");
      String id =
          operator.submit(
              aJob().shell("cat input && id -u > whoami").workingDir(experiment.toString()).json());

      await()
          .atMost(JOB)
          .untilAsserted(
              () ->
                  assertThat(operator.state(id))
                      .as(() -> operator.job(id).toString())
                      .isIn("SUCCEEDED", "FAILED"));
      assertThat(operator.state(id)).as(() -> operator.job(id).toString()).isEqualTo("SUCCEEDED");
      assertThat(Files.readString(experiment.resolve("whoami")).trim()).isEqualTo("0");

      JsonNode isolation = operator.get("/actuator/health").json().at("/components/isolation");
      assertThat(isolation.at("/details/isolation").asString()).isEqualTo("operator-account");
      assertThat(isolation.at("/details/jobAccounts/admin").asString()).startsWith("root (0:");
      assertThat(gpuq.output()).contains("no token is configured");
    }
  }
}
