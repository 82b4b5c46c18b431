package io.gpuq.meters;

import static io.gpuq.support.JobJson.aJob;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;
import static org.awaitility.Awaitility.await;

import io.gpuq.support.Gate;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

@DisplayName(
    "gpuq_owner_*: each owner's figures in a real scrape, as GET /api/v1/owners shows them")
class OwnerGaugesIntegrationTest extends MetricsIntegrationSupport {

  private static final Map<String, String> ALICE = Map.of("owner", "alice");

  @Test
  void a_running_job_shows_in_its_owners_gauges_under_the_configured_name() throws Exception {
    // Jobs other test classes left running end first; those they left queued stay.
    await().atMost(SOON).until(() -> alicesRow().path("runningJobs").asLong() == 0);
    Gate gate = aReleaseGate();
    String id = alice.submit(aJob().shell(gate.shellWait()).gpus(1).gpuFraction(0.25).json());
    try {
      awaitState(id, "RUNNING");
      Exposition scrape =
          awaitScrape(e -> assertThat(e.value("gpuq_owner_running_jobs", ALICE)).isEqualTo(1.0));
      long budget =
          alice.job(id).path("placement").path("gpus").get(0).path("memoryBytes").asLong();
      JsonNode row = alicesRow();

      assertThat(scrape.value("gpuq_owner_gpus_held", ALICE)).isCloseTo(0.25, within(1e-9));
      assertThat(scrape.value("gpuq_owner_gpu_memory_held_bytes", ALICE))
          .isEqualTo((double) budget);
      assertThat(scrape.value("gpuq_owner_share", ALICE)).isEqualTo(1.0);
      assertThat(scrape.value("gpuq_owner_queued_jobs", ALICE))
          .isEqualTo(row.path("queuedJobs").asDouble());
      assertThat(scrape.value("gpuq_owner_dominant_share", ALICE)).isGreaterThan(0);
      assertThat(scrape.value("gpuq_owner_fair_share_position", ALICE))
          .isCloseTo(
              scrape.value("gpuq_owner_dominant_share", ALICE)
                  + scrape.value("gpuq_owner_recent_usage", ALICE),
              within(1e-9));
      // Every configured owner has its series, idle or not, labelled by owner alone.
      for (String owner : List.of("root", "alice", "bob")) {
        assertThat(scrape.sample("gpuq_owner_share", Map.of("owner", owner))).isPresent();
      }
      assertThat(scrape.samples("gpuq_owner_running_jobs"))
          .allSatisfy(s -> assertThat(s.labels().keySet()).containsExactly("owner"));
    } finally {
      gate.open();
      alice.post("/api/v1/jobs/" + id + "/cancel");
    }
    awaitScrape(e -> assertThat(e.value("gpuq_owner_running_jobs", ALICE)).isZero());
  }

  private JsonNode alicesRow() {
    return alice.get("/api/v1/owners").json().path("owners").get(0);
  }
}
