package io.gpuq.recovery;

import static io.gpuq.support.JobJson.aJob;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.gpuq.support.GpuqProcess;
import io.gpuq.support.HttpApi;
import io.gpuq.support.IntegrationTier;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

/**
 * Issue 35: gpuq is killed with SIGKILL while a victim of a preemption is in its grace. The
 * preemption is stored, so the gpuq that starts again signals the victim again; its end requeues it
 * once, and the job it was preempted for starts once.
 */
@IntegrationTier
@DisplayName("A gpuq killed during a preemption's grace ends it once")
class PreemptionCrashRecoveryTest {

  private static final String ADMIN = "preempt-crash-admin-0123456789";
  private static final String ALICE = "preempt-crash-alice-0123456789";
  private static final String BOB = "preempt-crash-bob-0123456789ab";

  private static String[] args() {
    return new String[] {
      // One GPU: bob's job fits only where alice's preemptible run is.
      "--gpuq.gpu.emulated.count=1",
      "--gpuq.preemption.min-runtime=1s",
      "--gpuq.worker.allow-shared-account=true",
      "--gpuq.auth.tokens[1].name=alice",
      "--gpuq.auth.tokens[1].token=" + ALICE,
      "--gpuq.auth.tokens[2].name=bob",
      "--gpuq.auth.tokens[2].token=" + BOB
    };
  }

  @Test
  void the_victim_is_signalled_again_ends_preempted_once_and_the_waiting_job_starts_once()
      throws Exception {
    Path dataDir =
        Files.createTempDirectory(
            Files.createDirectories(Path.of("target/test-data")).toAbsolutePath(),
            "preempt-crash-");
    Path terms = dataDir.resolve("terms");
    Path exitGate = dataDir.resolve("exit-gate");
    Path bobRan = dataDir.resolve("bob-ran");
    Path trapSet = dataDir.resolve("trap-set");
    // alice's run notes each signal it gets and goes on until the gate opens (a run still saving
    // its checkpoint); its grace is long enough to outlast the crash and restart.
    String victimScript =
        "trap 'echo $GPUQ_ATTEMPT >> "
            + terms
            + "' TERM; touch "
            + trapSet
            + "; until [ -e "
            + exitGate
            + " ]; do sleep 0.1; done; exit 0";
    String victim;
    String bobs;
    try (GpuqProcess first = GpuqProcess.start(dataDir, ADMIN, args())) {
      HttpApi alice = first.api(ALICE);
      HttpApi bob = first.api(BOB);
      victim =
          alice.submit(
              aJob()
                  .shell(victimScript)
                  .gpus(1)
                  .field("preemptible", true)
                  .field("preemptGrace", "PT2M")
                  .json());
      // Not only RUNNING: its shell has set its trap (on a busy machine a TERM could come first).
      await().atMost(Duration.ofSeconds(30)).until(() -> Files.exists(trapSet));
      Thread.sleep(1_500); // past its minimum runtime
      bobs = bob.submit(aJob().shell("echo $GPUQ_JOB_ID >> " + bobRan).gpus(1).json());
      await()
          .atMost(Duration.ofSeconds(30))
          .pollInterval(Duration.ofMillis(100))
          .until(() -> Files.exists(terms) && !Files.readAllLines(terms).isEmpty());

      first.crash();
    }
    // The signal reaches the run through its process group and its process tree: it may note it
    // more than once.
    int signalledBeforeCrash = Files.readAllLines(terms).size();

    try (GpuqProcess second = GpuqProcess.start(dataDir, ADMIN, args())) {
      HttpApi alice = second.api(ALICE);
      HttpApi bob = second.api(BOB);
      // The restarted gpuq finds the stored preemption and signals the victim again.
      await()
          .atMost(Duration.ofSeconds(30))
          .pollInterval(Duration.ofMillis(200))
          .until(() -> Files.readAllLines(terms).size() > signalledBeforeCrash);
      assertThat(bob.state(bobs)).as("held while the victim stops").isEqualTo("QUEUED");
      Files.createFile(exitGate);

      await()
          .atMost(Duration.ofSeconds(30))
          .pollInterval(Duration.ofMillis(200))
          .until(
              () -> bob.state(bobs).equals("SUCCEEDED") && alice.state(victim).equals("SUCCEEDED"));
      JsonNode preempted = alice.job(victim);
      assertThat(preempted.get("attempt").asInt()).isEqualTo(2);
      assertThat(preempted.get("requeues").asInt()).isEqualTo(1);
      assertThat(preempted.get("attempts")).hasSize(2);
      assertThat(preempted.get("attempts").get(0).get("outcome").asString()).isEqualTo("PREEMPTED");
      assertThat(preempted.get("attempts").get(1).get("outcome").asString()).isEqualTo("SUCCEEDED");
      assertThat(
              second.api(ADMIN).job(victim).get("attempts").get(0).get("preemptedFor").asString())
          .isEqualTo(bobs);
      assertThat(bob.job(bobs).get("attempts")).hasSize(1);
      assertThat(Files.readAllLines(bobRan)).containsExactly(bobs);
      assertThat(Files.readAllLines(terms))
          .as("only its first attempt was signalled")
          .containsOnly("1");
    }
  }
}
