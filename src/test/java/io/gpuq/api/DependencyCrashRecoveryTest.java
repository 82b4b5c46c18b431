package io.gpuq.api;

import static io.gpuq.support.JobJson.aJob;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.gpuq.support.GpuqProcess;
import io.gpuq.support.HttpApi;
import io.gpuq.support.IntegrationTier;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * A job that waits for another, and gpuq killed with SIGKILL while the first one runs: the first
 * ends while gpuq is down, so its end and the release of its dependent both come after the restart,
 * from what the database and the exit file hold.
 */
@IntegrationTier
@DisplayName("Dependencies survive a gpuq killed between A's end and B's release (issue 37)")
class DependencyCrashRecoveryTest {

  private static final String TOKEN = "dependency-crash-token-0123456789";

  @Test
  @DisplayName("B starts once, after the restart, and A's end is recorded once")
  void the_dependent_starts_once_after_the_restart() throws Exception {
    Path dataDir =
        Files.createTempDirectory(
            Files.createDirectories(Path.of("target/test-data")).toAbsolutePath(), "dep-crash-");
    Path gate = dataDir.resolve("release");
    Path ran = dataDir.resolve("ran.txt");
    String a;
    String b;

    try (GpuqProcess first = GpuqProcess.start(dataDir, TOKEN)) {
      HttpApi api = first.api(TOKEN);
      a =
          api.submit(
              aJob()
                  .shell("while [ ! -e " + gate + " ]; do sleep 0.1; done; echo A >> " + ran)
                  .json());
      b =
          api.submit(
              aJob()
                  .shell("echo B >> " + ran)
                  .field("dependsOn", List.of(Map.of("job", a, "condition", "afterok")))
                  .json());
      await().atMost(Duration.ofSeconds(30)).until(() -> api.state(a).equals("RUNNING"));
      assertThat(api.job(b).get("held").asBoolean()).isTrue();

      first.crash();

      Files.createFile(gate);
      await()
          .atMost(Duration.ofSeconds(30))
          .until(() -> Files.exists(ran) && Files.readAllLines(ran).contains("A"));
      assertThat(Files.readAllLines(ran)).containsExactly("A");
    }

    try (GpuqProcess second = GpuqProcess.start(dataDir, TOKEN)) {
      HttpApi api = second.api(TOKEN);
      await()
          .atMost(Duration.ofSeconds(30))
          .pollInterval(Duration.ofMillis(250))
          .until(() -> api.state(b).equals("SUCCEEDED"));
      assertThat(api.state(a)).isEqualTo("SUCCEEDED");
      assertThat(api.job(a).get("attempts")).hasSize(1);
      assertThat(api.job(b).get("attempts")).hasSize(1);
      assertThat(Files.readAllLines(ran)).containsExactly("A", "B");
    }
  }
}
