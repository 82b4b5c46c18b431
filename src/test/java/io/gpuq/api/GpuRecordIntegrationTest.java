package io.gpuq.api;

import static io.gpuq.support.JobJson.aJob;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.gpuq.support.IntegrationTest;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

@DisplayName("The record of who ran on a GPU")
class GpuRecordIntegrationTest extends IntegrationTest {

  /** A budget two of which exceed an emulated GPU (16 GiB): they must take turns. */
  private static final String MORE_THAN_HALF_A_GPU = "9GiB";

  record Run(String id, int gpu, Instant startedAt, Instant finishedAt) {}

  @Test
  @DisplayName(
      "no two attempts whose budgets together exceed their GPU overlap in the record: each"
          + " successor starts after its predecessor finished")
  void attempts_that_cannot_share_a_gpu_never_overlap_in_the_record() {
    List<String> ids = new ArrayList<>();
    for (int n = 0; n < 12; n++) {
      // Failures too: their end is recorded after their log is searched for an OOM, which is
      // when the record's end used to be taken.
      ids.add(
          alice.submit(
              aJob()
                  .name("gpu-turn-" + n)
                  .shell(n % 2 == 0 ? "true" : "echo failing; exit 3")
                  .gpus(1)
                  .gpuMemory(MORE_THAN_HALF_A_GPU)
                  .json()));
    }
    await()
        .atMost(Duration.ofSeconds(90))
        .until(
            () ->
                ids.stream()
                    .map(alice::state)
                    .allMatch(state -> Set.of("SUCCEEDED", "FAILED").contains(state)));

    Map<Integer, List<Run>> byGpu = new HashMap<>();
    for (String id : ids) {
      JsonNode job = alice.job(id);
      assertThat(job.path("attempts").size()).isEqualTo(1);
      Run run =
          new Run(
              id,
              job.path("placement").path("gpus").get(0).path("index").asInt(),
              Instant.parse(job.path("startedAt").asString()),
              Instant.parse(job.path("finishedAt").asString()));
      byGpu.computeIfAbsent(run.gpu(), gpu -> new ArrayList<>()).add(run);
    }
    for (List<Run> runs : byGpu.values()) {
      runs.sort(Comparator.comparing(Run::startedAt));
      for (int i = 1; i < runs.size(); i++) {
        Run predecessor = runs.get(i - 1);
        Run successor = runs.get(i);
        assertThat(successor.startedAt())
            .as("%s started on GPU %d after %s finished", successor, successor.gpu(), predecessor)
            .isAfterOrEqualTo(predecessor.finishedAt());
      }
    }
  }
}
