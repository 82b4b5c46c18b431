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
import java.util.Map;
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
   * every attempt notes the step it started from, once its handler is set.
   */
  private static final String TRAINING =
      String.join(
          "\n",
          "import os, signal, sys, time",
          "d = os.environ['GPUQ_CHECKPOINT_DIR']",
          "ck = os.path.join(d, 'step')",
          "step = int(open(ck).read()) if os.path.exists(ck) else 0",
          "stop = []",
          "signal.signal(signal.SIGTERM, lambda *a: stop.append(1))",
          "with open(os.path.join(d, 'starts'), 'a') as f:",
          "    f.write(os.environ['GPUQ_ATTEMPT'] + ' ' + str(step) + '\\n')",
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
      // Both have set their handler (on a busy machine a TERM could come before it).
      await()
          .atMost(SOON)
          .until(
              () ->
                  alices.stream()
                      .allMatch(
                          id ->
                              Files.exists(
                                  dataDir()
                                      .resolve("work")
                                      .resolve(id)
                                      .resolve("checkpoint/starts"))));
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
      // Whom it served: an admin reads bob's job id; alice reads only "another owner's job".
      JsonNode served = view.get("attempts").get(0).path("preemptedFor");
      assertThat(served.isNull() || served.isMissingNode()).isTrue();
      assertThat(view.get("attempts").get(0).get("failureMessage").asString())
          .contains("another owner's job");
      assertThat(admin.job(preempted).get("attempts").get(0).get("preemptedFor").asString())
          .isEqualTo(bobsJob);
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

  @Test
  @DisplayName("a run younger than gpuq.preemption.min-runtime (2 s here) is not preempted")
  void minRuntimeHolds() throws Exception {
    List<String> alices = new ArrayList<>();
    String bobs = null;
    try {
      for (int i = 0; i < 2; i++) {
        alices.add(alice.submit(preemptibleTraining()));
      }
      await().atMost(SOON).until(() -> running(alices) == 2);
      bobs = bob.submit(aJob().command("true").gpus(1).json());
      String bobsJob = bobs;
      await().atMost(SOON).until(() -> !bob.state(bobsJob).equals("QUEUED"));

      Instant bobStarted =
          Instant.parse(bob.job(bobs).get("attempts").get(0).get("startedAt").asString());
      for (String id : alices) {
        JsonNode first = alice.job(id).get("attempts").get(0);
        if (first.path("outcome").asString("").equals("PREEMPTED")) {
          Instant started = Instant.parse(first.get("startedAt").asString());
          assertThat(Duration.between(started, bobStarted))
              .isGreaterThanOrEqualTo(Duration.ofSeconds(2));
        }
      }
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
  @DisplayName(
      "a job that exits with GPUQ_REQUEUE_EXIT_CODE goes back to the queue without using up retry")
  void requeueExitCode() {
    String id =
        alice.submit(
            aJob()
                .cpuOnly()
                .shell(
                    "if [ \"$GPUQ_ATTEMPT\" = 1 ]; then exit \"$GPUQ_REQUEUE_EXIT_CODE\"; fi; exit 0")
                .json());

    await().atMost(SOON).until(() -> alice.state(id).equals("SUCCEEDED"));
    JsonNode view = alice.job(id);
    assertThat(view.get("attempt").asInt()).isEqualTo(2);
    assertThat(view.get("requeues").asInt()).isEqualTo(1);
    assertThat(view.get("attempts").get(0).get("outcome").asString()).isEqualTo("PREEMPTED");
    assertThat(view.get("attempts").get(0).get("exitCode").asInt()).isEqualTo(85);
  }

  @Test
  @DisplayName(
      "POST /requeue preempts a running job with its signal and grace: its owner may, another owner"
          + " may not, and a job that does not run answers 409")
  void manualRequeue() {
    String id =
        alice.submit(
            aJob()
                .cpuOnly()
                .field("preemptSignal", "USR1")
                .shell(
                    "trap 'echo saved; exit 0' USR1; echo trap set; if [ \"$GPUQ_ATTEMPT\" = 1 ];"
                        + " then sleep 30 & wait; fi; exit 0")
                .json());
    try {
      // Not only RUNNING: on a busy machine the shell may not have set its trap yet, and USR1
      // would end it with 138 where the run saves and exits 0.
      await()
          .atMost(SOON)
          .until(() -> alice.get("/api/v1/jobs/" + id + "/logs").body().contains("trap set"));
      assertThat(bob.post("/api/v1/jobs/" + id + "/requeue").status()).isEqualTo(403);
      assertThat(alice.post("/api/v1/jobs/" + id + "/requeue").status()).isEqualTo(200);

      await().atMost(SOON).until(() -> alice.state(id).equals("SUCCEEDED"));
      JsonNode view = alice.job(id);
      assertThat(view.get("attempt").asInt()).isEqualTo(2);
      assertThat(view.get("attempts").get(0).get("outcome").asString()).isEqualTo("PREEMPTED");
      assertThat(view.get("attempts").get(0).get("exitCode").asInt()).isZero();
      assertThat(alice.post("/api/v1/jobs/" + id + "/requeue").status()).isEqualTo(409);
    } finally {
      alice.post("/api/v1/jobs/" + id + "/cancel");
    }
  }

  @Test
  @DisplayName(
      "timeoutSignal sends its signal that long before the timeout: the run saves and requeues"
          + " itself")
  void timeoutSignal() {
    String id =
        alice.submit(
            aJob()
                .cpuOnly()
                .timeout("PT8S")
                .field("timeoutSignal", Map.of("signal", "USR1", "before", "PT6S"))
                .shell(
                    "[ \"$GPUQ_ATTEMPT\" = 2 ] && exit 0; trap 'echo warned >"
                        + " \"$GPUQ_CHECKPOINT_DIR/warned\"; exit $GPUQ_REQUEUE_EXIT_CODE' USR1;"
                        + " sleep 30 & wait")
                .json());
    try {
      await().atMost(SOON).until(() -> alice.state(id).equals("SUCCEEDED"));
      JsonNode first = alice.job(id).get("attempts").get(0);
      assertThat(first.get("outcome").asString()).isEqualTo("PREEMPTED");
      Duration ran =
          Duration.between(
              Instant.parse(first.get("startedAt").asString()),
              Instant.parse(first.get("finishedAt").asString()));
      assertThat(ran).isLessThan(Duration.ofSeconds(8));
      assertThat(dataDir().resolve("work").resolve(id).resolve("checkpoint/warned")).exists();
    } finally {
      alice.post("/api/v1/jobs/" + id + "/cancel");
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
