package io.gpuq.schedule;

import static io.gpuq.support.JobJson.aJob;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.gpuq.support.Gate;
import io.gpuq.support.IntegrationTest;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

@DisplayName("On 2 emulated GPUs of 16 GiB, jobs are placed by memory and confined to it")
class GpuPlacementIntegrationTest extends IntegrationTest {

  private static final long GIB = 1L << 30;
  private static final String REPORT =
      "echo start=$(date +%s%N); echo cuda=$CUDA_VISIBLE_DEVICES;"
          + " echo frac=$XLA_PYTHON_CLIENT_MEM_FRACTION; echo budget=$GPUQ_GPU_MEMORY_BYTES;"
          + " sleep 1; echo end=$(date +%s%N)";

  @Test
  void twelve_jobs_of_6_GiB_run_at_most_two_per_gpu_and_each_sees_its_placement() {
    List<String> ids = new ArrayList<>();
    for (int i = 0; i < 12; i++) {
      ids.add(alice.submit(aJob().shell(REPORT).gpus(1).gpuMemory("6GiB").framework("jax").json()));
    }
    await()
        .atMost(Duration.ofSeconds(60))
        .until(() -> ids.stream().allMatch(id -> alice.state(id).equals("SUCCEEDED")));

    Map<Integer, List<long[]>> intervalsByGpu = new HashMap<>();
    for (String id : ids) {
      JsonNode job = alice.job(id);
      JsonNode gpu = job.get("placement").get("gpus").get(0);
      Map<String, String> seen = report(id);
      assertThat(job.get("placement").get("gpus")).hasSize(1);
      assertThat(gpu.get("memoryBytes").asLong()).isEqualTo(6 * GIB);
      assertThat(seen.get("cuda")).isEqualTo(gpu.get("uuid").asString());
      assertThat(seen.get("budget")).isEqualTo(Long.toString(6 * GIB));
      assertThat(Double.parseDouble(seen.get("frac"))).isEqualTo(0.375);
      assertThat(job.get("placement").get("memoryFraction").asDouble()).isEqualTo(0.375);
      intervalsByGpu
          .computeIfAbsent(gpu.get("index").asInt(), g -> new ArrayList<>())
          .add(new long[] {Long.parseLong(seen.get("start")), Long.parseLong(seen.get("end"))});
    }
    assertThat(intervalsByGpu.keySet()).containsExactlyInAnyOrder(0, 1);
    intervalsByGpu.forEach(
        (gpu, intervals) ->
            assertThat(maxOverlap(intervals)).as("GPU " + gpu).isLessThanOrEqualTo(2));
  }

  @Test
  void a_two_gpu_job_gets_two_distinct_gpus() {
    String id = alice.submit(aJob().shell(REPORT).gpus(2).gpuMemory("1GiB").json());
    await().atMost(Duration.ofSeconds(20)).until(() -> alice.state(id).equals("SUCCEEDED"));

    JsonNode gpus = alice.job(id).get("placement").get("gpus");
    Set<Integer> indices = new java.util.HashSet<>();
    List<String> uuids = new ArrayList<>();
    gpus.forEach(
        g -> {
          indices.add(g.get("index").asInt());
          uuids.add(g.get("uuid").asString());
        });
    assertThat(indices).containsExactlyInAnyOrder(0, 1);
    assertThat(report(id).get("cuda")).isEqualTo(String.join(",", uuids));
  }

  @Test
  void a_whole_gpu_job_waits_until_a_gpu_is_empty() throws IOException {
    // The spread job ends once the whole-GPU one has been seen waiting, not after a fixed time.
    Gate seenWaiting = Gate.in(dataDir(), "whole-gpu-seen-waiting");
    String spread =
        alice.submit(
            aJob()
                .shell(seenWaiting.shellWait() + "; echo end=$(date +%s%N)")
                .gpus(2)
                .gpuMemory("1GiB")
                .json());
    await().atMost(Duration.ofSeconds(20)).until(() -> alice.state(spread).equals("RUNNING"));

    String whole = alice.submit(aJob().shell(REPORT).gpus(1).json());
    try {
      assertThat(alice.state(whole)).isEqualTo("QUEUED");
    } finally {
      // Even when the check fails: a job left running would hold both GPUs of the shared gpuq.
      seenWaiting.open();
    }
    await().atMost(Duration.ofSeconds(30)).until(() -> alice.state(whole).equals("SUCCEEDED"));

    // Its process started after the last process on either GPU had ended.
    assertThat(Long.parseLong(report(whole).get("start")))
        .isGreaterThan(Long.parseLong(report(spread).get("end")));
    JsonNode wholeJob = alice.job(whole);
    long budget = wholeJob.get("placement").get("gpus").get(0).get("memoryBytes").asLong();
    assertThat(budget).isGreaterThan(15 * GIB).isLessThan(16 * GIB);
  }

  @Test
  void a_request_that_can_never_fit_is_refused_at_submit() {
    var tooMany = alice.post("/api/v1/jobs", aJob().gpus(3).json());
    var tooBig = alice.post("/api/v1/jobs", aJob().gpus(1).gpuMemory("40GiB").json());

    assertThat(tooMany.status()).isEqualTo(422);
    assertThat(tooMany.contentType()).startsWith("application/problem+json");
    assertThat(tooMany.json().get("detail").asString()).contains("3 GPUs");
    assertThat(tooBig.status()).isEqualTo(422);
    assertThat(tooBig.json().get("errors").get(0).get("field").asString()).isEqualTo("resources");
  }

  @Test
  void the_gpus_endpoint_shows_the_emulated_devices_with_reservations_and_processes()
      throws IOException {
    // The job runs until the GPUs have been read, however slowly the machine answers.
    Gate read = Gate.in(dataDir(), "gpus-read");
    String id = alice.submit(aJob().shell(read.shellWait()).gpus(1).gpuMemory("2GiB").json());
    try {
      await().atMost(Duration.ofSeconds(20)).until(() -> alice.state(id).equals("RUNNING"));
      long pid = alice.job(id).get("attempts").get(0).get("pid").asLong();

      await()
          .atMost(Duration.ofSeconds(60))
          .untilAsserted(
              () -> {
                JsonNode gpus = alice.get("/api/v1/gpus").json();
                assertThat(gpus).hasSize(2);
                JsonNode placed =
                    gpus.get(
                        alice.job(id).get("placement").get("gpus").get(0).get("index").asInt());
                assertThat(placed.get("backend").asString()).isEqualTo("emulated");
                assertThat(placed.get("uuid").asString()).startsWith("GPU-emulated-");
                assertThat(placed.get("memoryTotalBytes").asLong()).isEqualTo(16 * GIB);
                assertThat(placed.get("memoryReservedBytes").asLong()).isEqualTo(2 * GIB);
                assertThat(placed.get("node").asString()).isEqualTo("test-node");
                List<Long> pids = new ArrayList<>();
                placed
                    .get("processes")
                    .forEach(
                        p -> {
                          pids.add(p.get("pid").asLong());
                          assertThat(p.get("jobId").asString()).isEqualTo(id);
                        });
                assertThat(pids).contains(pid);
              });
      assertThat(alice.as(null).get("/api/v1/gpus").status()).isEqualTo(401);
    } finally {
      // Even when a check fails: a job left running would hold a GPU of the shared gpuq.
      read.open();
    }
    await().atMost(Duration.ofSeconds(60)).until(() -> alice.state(id).equals("SUCCEEDED"));
  }

  private Map<String, String> report(String id) {
    return alice
        .get("/api/v1/jobs/" + id + "/logs")
        .body()
        .lines()
        .filter(l -> l.contains("="))
        .collect(
            Collectors.toMap(
                l -> l.substring(0, l.indexOf('=')),
                l -> l.substring(l.indexOf('=') + 1),
                (a, b) -> b));
  }

  private static int maxOverlap(List<long[]> intervals) {
    int max = 0;
    for (long[] a : intervals) {
      int overlapping = 0;
      for (long[] b : intervals) {
        if (b[0] <= a[0] && a[0] < b[1]) {
          overlapping++;
        }
      }
      max = Math.max(max, overlapping);
    }
    return max;
  }
}
