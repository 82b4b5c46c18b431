package io.gpuq.schedule;

import static io.gpuq.support.JobJson.aJob;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.gpuq.support.Gate;
import io.gpuq.support.IntegrationTest;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

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
      // The four places are taken; the 26 others wait.
      await().atMost(SOON).until(() -> started(alices).size() == 4);

      bobs = bob.submit(aJob().command("sleep", "60").gpus(1).gpuFraction(0.4).json());
      String bobsJob = bobs;
      // One of alice's running jobs ends: the place goes to bob, who holds nothing.
      String running =
          alices.stream().filter(id -> alice.state(id).equals("RUNNING")).findFirst().orElseThrow();
      alice.post("/api/v1/jobs/" + running + "/cancel");
      await().atMost(SOON).until(() -> bob.state(bobsJob).equals("RUNNING"));

      // From the attempts' own instants: between bob's submission and his start, at most one of
      // alice's jobs started (a pass already under way when he submitted may start one).
      JsonNode bobsView = bob.job(bobs);
      Instant submitted = Instant.parse(bobsView.get("createdAt").asString());
      Instant bobStarted =
          Instant.parse(bobsView.get("attempts").get(0).get("startedAt").asString());
      List<Instant> alicesBetween =
          started(alices).stream()
              .filter(at -> !at.isBefore(submitted) && !at.isAfter(bobStarted))
              .toList();
      assertThat(alicesBetween)
          .as(
              "alice's starts between bob's submission at %s and his start at %s",
              submitted, bobStarted)
          .hasSizeLessThanOrEqualTo(1);
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

  /** When each of alice's attempts so far started, whether it still runs or not. */
  private List<Instant> started(List<String> ids) {
    List<Instant> starts = new ArrayList<>();
    for (String id : ids) {
      for (JsonNode attempt : alice.job(id).get("attempts")) {
        starts.add(Instant.parse(attempt.get("startedAt").asString()));
      }
    }
    return starts;
  }
}
