package io.gpuq.warm;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.gpuq.job.ClaimedJob;
import io.gpuq.job.Framework;
import io.gpuq.job.HostResources;
import io.gpuq.job.JobPlacement;
import io.gpuq.job.SweepTrial;
import io.gpuq.launch.LaunchRequest;
import io.gpuq.support.IntegrationTier;
import io.gpuq.support.TestDataDirs;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

@IntegrationTier
@DisplayName("A sweep's zygote (issue 36)")
class ZygoteRetirementTest {

  private final Path root = TestDataDirs.fresh("warm-retire-");
  private final WarmStarts warm =
      new WarmStarts(
          root.resolve("warm"),
          Duration.ofMinutes(2),
          1000,
          Duration.ofSeconds(30),
          Clock.systemUTC());

  @AfterEach
  void retire() {
    warm.close();
  }

  @Test
  @DisplayName("is retired once its sweep has ended, not before")
  void retired_with_its_sweep() throws Exception {
    ClaimedJob trial =
        new ClaimedJob(
            "trial-0",
            "alice",
            1,
            List.of("python3", "-c", "pass"),
            root.toString(),
            Map.of(),
            Framework.GENERIC,
            null,
            Instant.now(),
            Instant.now(),
            new SweepTrial("sweep-1", 0, "{}"),
            HostResources.ONE_CORE,
            List.of("json"),
            null);
    LaunchRequest setup =
        warm.prepare(
            trial,
            LaunchRequest.of(
                trial,
                JobPlacement.cpuOnly("node-1"),
                null,
                Map.of("PATH", System.getenv("PATH")),
                List.of()));
    List<String> command = setup.command();
    // The key's directory follows the client script.
    Path dir =
        Path.of(
            command.get(
                1
                    + command.indexOf(
                        root.resolve("warm/bin").resolve(WarmStarts.CLIENT).toString())));
    await().atMost(Duration.ofSeconds(30)).until(() -> Files.exists(dir.resolve("z.sock")));
    long pid = Long.parseLong(Files.readString(dir.resolve("pid")).trim());

    assertThat(warm.retireEnded(sweep -> false)).isZero();
    assertThat(ProcessHandle.of(pid).map(ProcessHandle::isAlive)).contains(true);

    assertThat(warm.retireEnded(sweep -> sweep.equals("sweep-1"))).isEqualTo(1);
    await()
        .atMost(Duration.ofSeconds(10))
        .until(() -> ProcessHandle.of(pid).map(h -> !h.isAlive()).orElse(true));
    assertThat(dir.resolve("z.sock")).doesNotExist();
  }
}
