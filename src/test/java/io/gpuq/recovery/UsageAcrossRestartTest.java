package io.gpuq.recovery;

import static io.gpuq.support.JobJson.aJob;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.gpuq.support.Gate;
import io.gpuq.support.GpuqProcess;
import io.gpuq.support.HttpApi;
import io.gpuq.support.IntegrationTier;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

/**
 * Issue 26: recent usage is kept in the database ({@code owner_usage}), so a restarted gpuq orders
 * owners as the one before it did. alice has used both emulated GPUs; bob has used nothing. Each
 * queues a job that needs both GPUs whole, alice first; then gpuq is killed while alice's first job
 * holds the GPUs, and that job ends while gpuq is down. The restarted gpuq's first pass has both
 * queued jobs and room for one: with alice's usage read back, bob's goes first; with it lost, both
 * would stand at zero and the tie would go to alice's, queued earlier.
 */
@IntegrationTier
@DisplayName("Fair share: recent usage survives a restart and orders owners the same way")
class UsageAcrossRestartTest {

  private static final String TOKEN = "usage-restart-token-0123456";
  private static final String ALICE = "usage-restart-alice-0123456";
  private static final String BOB = "usage-restart-bob-012345678";
  private static final Duration LONG = Duration.ofMinutes(2);

  /** Both emulated GPUs, whole. */
  private static final int BOTH = 2;

  @Test
  void a_restarted_gpuq_reads_the_stored_usage_back_before_its_first_pass() throws Exception {
    Path dataDir =
        Files.createTempDirectory(
            Files.createDirectories(Path.of("target/test-data")).toAbsolutePath(), "usage-");
    Gate release = Gate.in(dataDir, "release");
    Gate hold = Gate.in(dataDir, "hold");
    String used;
    String alices;
    String bobs;

    // Usage is written often, so that alice's shows in the database within a second.
    try (GpuqProcess first = GpuqProcess.start(dataDir, TOKEN, args("200ms"))) {
      HttpApi alice = first.api(ALICE);
      HttpApi bob = first.api(BOB);
      used = alice.submit(aJob().shell(release.shellWait()).gpus(BOTH).json());
      await().atMost(LONG).until(() -> hasWorker(alice.job(used)));
      alices = alice.submit(aJob().shell(hold.shellWait()).gpus(BOTH).json());
      bobs = bob.submit(aJob().shell(hold.shellWait()).gpus(BOTH).json());
      // alice holds every GPU for two seconds, ten runs of the usage duty: a dominant share of 1.
      Instant startedAt =
          Instant.parse(alice.job(used).get("attempts").get(0).get("startedAt").asString());
      await().atMost(LONG).until(() -> Instant.now().isAfter(startedAt.plusSeconds(2)));
      assertThat(alice.state(alices)).isEqualTo("QUEUED");
      assertThat(bob.state(bobs)).isEqualTo("QUEUED");
      first.crash();
    }

    // alice's job ends while gpuq is down: the restarted gpuq finds both GPUs free at once.
    release.open();
    Path exitFile = dataDir.resolve("jobs").resolve(used).resolve("attempt-1.exit");
    await()
        .atMost(LONG)
        .until(
            () ->
                Files.isRegularFile(exitFile, LinkOption.NOFOLLOW_LINKS)
                    && Files.size(exitFile) > 0);

    // The default interval: the restarted gpuq's own first run of the usage duty comes 30 s after
    // its start, long after its first pass.
    try (GpuqProcess second = GpuqProcess.start(dataDir, TOKEN, args("30s"))) {
      HttpApi alice = second.api(ALICE);
      HttpApi bob = second.api(BOB);
      try {
        await()
            .atMost(LONG)
            .until(
                () -> !alice.state(alices).equals("QUEUED") || !bob.state(bobs).equals("QUEUED"));
        assertThat(bob.state(bobs)).isEqualTo("RUNNING");
        assertThat(alice.state(alices)).isEqualTo("QUEUED");
        assertThat(alice.state(used)).isEqualTo("SUCCEEDED");
      } finally {
        hold.open();
        alice.post("/api/v1/jobs/" + alices + "/cancel");
        bob.post("/api/v1/jobs/" + bobs + "/cancel");
      }
    }
  }

  private static String[] args(String accountInterval) {
    return List.of(
            "--gpuq.auth.tokens[1].name=alice",
            "--gpuq.auth.tokens[1].token=" + ALICE,
            "--gpuq.auth.tokens[2].name=bob",
            "--gpuq.auth.tokens[2].token=" + BOB,
            "--gpuq.worker.allow-shared-account=true",
            "--gpuq.placement.start-spacing=100ms",
            "--gpuq.fair-share.half-life=1h",
            "--gpuq.fair-share.account-interval=" + accountInterval)
        .toArray(String[]::new);
  }

  private static boolean hasWorker(JsonNode job) {
    if (!job.get("state").asString().equals("RUNNING")) {
      return false;
    }
    JsonNode pid = job.get("attempts").get(0).get("pid");
    return pid != null && !pid.isNull() && pid.asLong() > 0;
  }
}
