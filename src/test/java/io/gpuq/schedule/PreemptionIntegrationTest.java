package io.gpuq.schedule;

import static io.gpuq.support.JobJson.aJob;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.gpuq.support.Gate;
import io.gpuq.support.IntegrationTest;
import java.nio.file.Files;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

/**
 * Issue 35 end to end, with real workers on the two emulated GPUs and gpuq.preemption.min-runtime
 * of 2 s: alice's preemptible runs hold both GPUs, bob queues one job; one of alice's runs gets
 * SIGTERM, checkpoints to its GPUQ_CHECKPOINT_DIR and exits; bob's job starts; alice's run goes
 * back to the queue and resumes from its checkpoint.
 */
@DisplayName("Preemption with checkpoints (issue 35)")
class PreemptionIntegrationTest extends IntegrationTest {

  private static final Duration GRACE = Duration.ofSeconds(5);
  private static final Duration SOON = Duration.ofSeconds(30);

  /**
   * 100 steps of 0.1 s; on SIGTERM it writes the step it reached to its checkpoint and exits 0;
   * every attempt notes the step it started from.
   */
  private static final String TRAINING =
      String.join(
          "\n",
          "import os, signal, sys, time",
          "d = os.environ['GPUQ_CHECKPOINT_DIR']",
          "ck = os.path.join(d, 'step')",
          "step = int(open(ck).read()) if os.path.exists(ck) else 0",
          "with open(os.path.join(d, 'starts'), 'a') as f:",
          "    f.write(os.environ['GPUQ_ATTEMPT'] + ' ' + str(step) + '\\n')",
          "stop = []",
          "signal.signal(signal.SIGTERM, lambda *a: stop.append(1))",
          "while step < 100:",
          "    if stop:",
          "        open(ck, 'w').write(str(step))",
          "        sys.exit(0)",
          "    time.sleep(0.1)",
          "    step += 1");

  @Test
  @DisplayName(
      "bob's job starts within the grace of alice's preempted run, which resumes from its"
          + " checkpoint and succeeds")
  void alicesRunGivesWayAndResumes() throws Exception {
    List<String> alices = new ArrayList<>();
    String bobs = null;
    try {
      for (int i = 0; i < 2; i++) {
        alices.add(alice.submit(preemptibleTraining()));
      }
      await().atMost(SOON).until(() -> running(alices) == 2);
      // Both must have run their minimum runtime (2 s) before either may be preempted.
      Thread.sleep(2_500);

      Instant submitted = Instant.now();
      bobs = bob.submit(aJob().command("sleep", "3").gpus(1).json());
      String bobsJob = bobs;
      await()
          .atMost(GRACE.plusSeconds(5))
          .pollInterval(Duration.ofMillis(100))
          .until(() -> !bob.state(bobsJob).equals("QUEUED"));
      assertThat(Duration.between(submitted, Instant.now())).isLessThan(GRACE.plusSeconds(5));

      String preempted =
          alices.stream()
              .filter(
                  id ->
                      alice
                          .job(id)
                          .get("attempts")
                          .get(0)
                          .path("outcome")
                          .asString("")
                          .equals("PREEMPTED"))
              .findFirst()
              .orElseThrow(() -> new AssertionError("none of alice's runs was preempted"));
      await().atMost(SOON).until(() -> alice.state(preempted).equals("SUCCEEDED"));
      JsonNode view = alice.job(preempted);
      assertThat(view.get("attempt").asInt()).isEqualTo(2);
      assertThat(view.get("requeues").asInt()).isEqualTo(1);
      assertThat(view.get("attempts").get(0).get("outcome").asString()).isEqualTo("PREEMPTED");
      List<String> starts =
          Files.readAllLines(
              dataDir().resolve("work").resolve(preempted).resolve("checkpoint/starts"));
      assertThat(starts).hasSize(2);
      assertThat(starts.get(0)).isEqualTo("1 0");
      assertThat(starts.get(1)).startsWith("2 ").isNotEqualTo("2 0");
      await().atMost(SOON).until(() -> bob.state(bobsJob).equals("SUCCEEDED"));
    } finally {
      for (String id : alices) {
        alice.post("/api/v1/jobs/" + id + "/cancel");
      }
      if (bobs != null) {
        bob.post("/api/v1/jobs/" + bobs + "/cancel");
      }
    }
  }

  @Test
  @DisplayName("a run that is not preemptible is never preempted")
  void notPreemptibleStays() throws Exception {
    Gate gate = Gate.in(dataDir(), "not-preemptible");
    List<String> alices = new ArrayList<>();
    String bobs = null;
    try {
      for (int i = 0; i < 2; i++) {
        alices.add(alice.submit(aJob().shell(gate.shellWait()).gpus(1).json()));
      }
      await().atMost(SOON).until(() -> running(alices) == 2);
      Thread.sleep(2_500);
      bobs = bob.submit(aJob().command("true").gpus(1).json());
      Thread.sleep(3_000);

      assertThat(bob.state(bobs)).isEqualTo("QUEUED");
      assertThat(running(alices)).isEqualTo(2);
    } finally {
      gate.open();
      for (String id : alices) {
        alice.post("/api/v1/jobs/" + id + "/cancel");
      }
      if (bobs != null) {
        bob.post("/api/v1/jobs/" + bobs + "/cancel");
      }
    }
  }

  private String preemptibleTraining() {
    return aJob()
        .command("python3", "-c", TRAINING)
        .gpus(1)
        .field("preemptible", true)
        .field("preemptGrace", GRACE.toString())
        .json();
  }

  private long running(List<String> ids) {
    return ids.stream().filter(id -> alice.state(id).equals("RUNNING")).count();
  }
}
