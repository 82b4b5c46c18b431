package io.gpuq.schedule;

import static io.gpuq.support.JobJson.aJob;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.gpuq.support.Gate;
import io.gpuq.support.IntegrationTest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * The case of issue 26, end to end with real workers on the two emulated GPUs: alice queues 30 jobs
 * of 0.4 GPU (two fit on each GPU, so four run), then bob queues one of the same size. Before fair
 * share, 28 of alice's started before bob's.
 */
@DisplayName("Fair share: one owner's long queue does not keep another owner's job waiting")
class FairShareIntegrationTest extends IntegrationTest {

  private static final Duration SOON = Duration.ofSeconds(30);

  @Test
  void bobs_one_job_starts_as_soon_as_a_place_frees_ahead_of_alices_thirty() throws Exception {
    Gate gate = Gate.in(dataDir(), "alice");
    List<String> alices = new ArrayList<>();
    String bobs = null;
    try {
      for (int i = 0; i < 30; i++) {
        alices.add(alice.submit(aJob().shell(gate.shellWait()).gpus(1).gpuFraction(0.4).json()));
      }
      await().atMost(SOON).until(() -> started(alices) == 4);
      // A pass in flight may start one more, never more: the four places are taken.
      int startedBeforeBob = started(alices);

      bobs = bob.submit(aJob().command("sleep", "60").gpus(1).gpuFraction(0.4).json());
      String bobsJob = bobs;
      // One of alice's running jobs ends: the place goes to bob, who holds nothing.
      String running =
          alices.stream().filter(id -> alice.state(id).equals("RUNNING")).findFirst().orElseThrow();
      alice.post("/api/v1/jobs/" + running + "/cancel");
      await().atMost(SOON).until(() -> bob.state(bobsJob).equals("RUNNING"));

      assertThat(started(alices) - startedBeforeBob).isLessThanOrEqualTo(1);
      assertThat(admin.job(alices.get(29)).path("queuedReason").asString()).isNotEmpty();
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

  /** alice's jobs that have left the queue: started, whether they still run or not. */
  private int started(List<String> ids) {
    int started = 0;
    for (String id : ids) {
      if (!alice.state(id).equals("QUEUED")) {
        started++;
      }
    }
    return started;
  }
}
