package io.gpuq.api;

import static io.gpuq.job.JobBuilder.aQueuedJob;
import static io.gpuq.support.JobJson.aJob;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.gpuq.job.Job;
import io.gpuq.job.JobStore;
import io.gpuq.job.SweepTrial;
import io.gpuq.support.IntegrationTest;
import io.gpuq.support.SweepRows;
import java.time.Duration;
import java.util.List;
import javax.sql.DataSource;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import tools.jackson.databind.JsonNode;

@DisplayName("A queued job's view says why it waits")
class QueuedReasonIntegrationTest extends IntegrationTest {

  private static final Duration SOON = Duration.ofSeconds(20);

  @Autowired DataSource dataSource;
  @Autowired JobStore store;

  @Test
  void a_job_that_does_not_fit_now_names_the_memory_it_waits_for_and_the_most_free_gpu() {
    // Both emulated GPUs (16 GiB, 5% headroom) get a 12 GiB budget: 3.2 GiB stays free on each.
    List<String> holders =
        List.of(
            alice.submit(aJob().command("sleep", "60").gpus(1).gpuMemory("12GiB").json()),
            alice.submit(aJob().command("sleep", "60").gpus(1).gpuMemory("12GiB").json()));
    holders.forEach(id -> awaitState(id, "RUNNING"));
    try {
      String waiting = alice.submit(aJob().command("sleep", "60").gpus(1).gpuMemory("8GiB").json());

      await()
          .atMost(SOON)
          .untilAsserted(
              () ->
                  assertThat(alice.job(waiting).path("queuedReason").asString())
                      .matches(
                          "waiting for 8GiB on one GPU; most free is 3\\.2GiB on GPU [01] of node"
                              + " test-node"));
      assertThat(alice.job(waiting).get("state").asString()).isEqualTo("QUEUED");
      assertThat(alice.job(holders.get(0)).get("queuedReason").isNull()).isTrue();

      alice.post("/api/v1/jobs/" + waiting + "/cancel");
    } finally {
      holders.forEach(id -> alice.post("/api/v1/jobs/" + id + "/cancel"));
    }
  }

  @Test
  void a_trial_held_back_by_its_sweeps_limit_says_so() {
    String sweep = new SweepRows(dataSource).sweep(1, null);
    List<Job> trials = List.of(trial(sweep, 0), trial(sweep, 1));
    try {
      await()
          .atMost(SOON)
          .untilAsserted(
              () -> {
                List<JsonNode> views = trials.stream().map(t -> alice.job(t.id())).toList();
                assertThat(views)
                    .extracting(v -> v.get("state").asString())
                    .containsExactlyInAnyOrder("RUNNING", "QUEUED");
                assertThat(views)
                    .filteredOn(v -> v.get("state").asString().equals("QUEUED"))
                    .singleElement()
                    .satisfies(
                        v ->
                            assertThat(v.get("queuedReason").asString())
                                .isEqualTo("sweep at maxConcurrent 1"));
              });
    } finally {
      trials.forEach(t -> alice.post("/api/v1/jobs/" + t.id() + "/cancel"));
    }
  }

  private Job trial(String sweep, int number) {
    return aQueuedJob()
        .trialOf(new SweepTrial(sweep, number, "{}"))
        .spec(s -> s.command("sleep", "60").gpus(0))
        .in(store);
  }

  private void awaitState(String id, String state) {
    await().atMost(SOON).untilAsserted(() -> assertThat(alice.state(id)).isEqualTo(state));
  }
}
