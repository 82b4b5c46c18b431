package io.gpuq.meters;

import static io.gpuq.support.JobJson.aJob;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;
import static org.awaitility.Awaitility.await;

import io.gpuq.proc.KernelConstants;
import io.gpuq.support.Gate;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

@DisplayName("/actuator/prometheus shows GPUs, jobs and the scheduler as they are")
class MetricsIntegrationTest extends MetricsIntegrationSupport {

  @Test
  void a_running_gpu_job_is_measured_per_process_per_job_and_on_the_host_and_then_forgotten()
      throws IOException {
    Gate release = aReleaseGate();
    String id = alice.submit(holding100MiBUntil(release));
    awaitState(id, "RUNNING");
    // A job is RUNNING once claimed; its worker's pid is recorded a moment later, by its launch.
    long pid =
        org.awaitility.Awaitility.await()
            .atMost(java.time.Duration.ofSeconds(30))
            .until(() -> alice.job(id).get("attempts").get(0).get("pid").asLong(0), p -> p > 0);
    JsonNode job = alice.job(id);
    String gpu = job.get("placement").get("gpus").get(0).get("index").asString();
    String uuid = job.get("placement").get("gpus").get(0).get("uuid").asString();

    // Once the 100 MiB are all there: before that the figures grow from one poll to the next.
    Exposition e =
        awaitScrape(
            hasSeries(id, "gpuq_job_cpu_usage_ratio", "gpuq_process_gpu_memory_used_bytes")
                .andThen(
                    scrape -> {
                      assertThat(scrape.value("gpuq_job_gpu_memory_used_bytes", job(id)))
                          .isGreaterThan(100.0 * MIB);
                      // Host meters are read by their own duty, which may not have seen it yet.
                      assertThat(scrape.value("gpuq_job_resident_memory_bytes", job(id)))
                          .isGreaterThan(50.0 * MIB);
                      assertThat(scrape.value("gpuq_job_cpu_seconds_total", job(id)))
                          .isGreaterThan(0.0);
                      // The GPU's figure and the job's may come from two polls while it grows.
                      assertThat(
                              scrape.value(
                                  "gpuq_gpu_memory_used_bytes",
                                  Map.of("node", "test-node", "gpu", gpu, "uuid", uuid)))
                          .isGreaterThanOrEqualTo(
                              scrape.value("gpuq_job_gpu_memory_used_bytes", job(id)));
                    }));

    List<Exposition.Sample> processes =
        e.samples("gpuq_process_gpu_memory_used_bytes", s -> id.equals(s.label("job_id")));
    assertThat(processes)
        .allSatisfy(
            p -> {
              assertThat(p.labels()).containsEntry("node", "test-node").containsEntry("gpu", gpu);
              assertThat(p.labels()).containsOnlyKeys("node", "gpu", "pid", "job_id");
            });
    assertThat(processes).extracting(p -> p.label("pid")).contains(Long.toString(pid));
    double jobUsed =
        e.value(
            "gpuq_job_gpu_memory_used_bytes",
            Map.of("job_id", id, "gpu", gpu, "node", "test-node"));
    assertThat(processes.stream().mapToDouble(Exposition.Sample::value).sum())
        .isCloseTo(jobUsed, within(jobUsed * 0.05));
    assertThat(jobUsed).isCloseTo(residentBytes(processes), within(jobUsed * 0.2));
    assertThat(e.value("gpuq_job_gpu_memory_budget_bytes", Map.of("job_id", id, "gpu", gpu)))
        .isEqualTo((double) GIB);

    Map<String, String> device = Map.of("node", "test-node", "gpu", gpu, "uuid", uuid);
    assertThat(e.value("gpuq_gpu_memory_total_bytes", device)).isEqualTo(16.0 * GIB);
    assertThat(e.value("gpuq_gpu_memory_reserved_bytes", device)).isGreaterThanOrEqualTo(GIB);
    assertThat(e.value("gpuq_gpu_memory_used_bytes", device)).isGreaterThanOrEqualTo(jobUsed);
    assertThat(e.value("gpuq_gpu_utilization_ratio", device)).isBetween(0.0, 1.0);

    assertThat(e.value("gpuq_job_resident_memory_bytes", job(id))).isGreaterThan(50.0 * MIB);
    assertThat(e.value("gpuq_job_cpu_seconds_total", job(id))).isGreaterThan(0.0);
    assertThat(e.value("gpuq_job_cpu_usage_ratio", job(id)))
        .isBetween(0.0, (double) Runtime.getRuntime().availableProcessors());

    release.open();
    awaitState(id, "SUCCEEDED");
    await()
        .atMost(SOON)
        .untilAsserted(() -> assertThat(scrape().withLabel("job_id", id)).isEmpty());
    assertThat(scrape().samples("gpuq_process_gpu_memory_used_bytes"))
        .noneMatch(p -> p.label("pid").equals(Long.toString(pid)));
  }

  /** The resident memory of these processes as the kernel reports it now. */
  private static double residentBytes(List<Exposition.Sample> processes) throws IOException {
    long pageSize = KernelConstants.detect().pageSizeBytes();
    long total = 0;
    for (Exposition.Sample process : processes) {
      String statm = Files.readString(Path.of("/proc", process.label("pid"), "statm"));
      total += Long.parseLong(statm.split(" ")[1]) * pageSize;
    }
    return total;
  }

  @Test
  void a_cpu_only_job_has_host_figures_and_no_gpu_series() {
    String id =
        alice.submit(
            aJob()
                .command(
                    "python3",
                    "-c",
                    "import time\nend = time.time() + 6\nwhile time.time() < end: pass")
                .json());
    awaitState(id, "RUNNING");

    // One spinning process: up to a core, less on a loaded machine, but clearly more than the
    // 0.0 of a sleeping one.
    awaitScrape(
        scrape -> {
          assertThat(scrape.samples("gpuq_job_cpu_usage_ratio", s -> id.equals(s.label("job_id"))))
              .singleElement()
              .satisfies(s -> assertThat(s.value()).isGreaterThan(0.05));
          // Counted in clock ticks (10 ms): awaited too, as the ratio may lead it by a tick.
          assertThat(scrape.value("gpuq_job_cpu_seconds_total", job(id))).isGreaterThan(0.05);
        });
    Exposition e = scrape();
    assertThat(e.value("gpuq_job_resident_memory_bytes", job(id))).isGreaterThan(1.0 * MIB);
    assertThat(e.withLabel("job_id", id))
        .extracting(Exposition.Sample::name)
        .containsExactlyInAnyOrder(
            "gpuq_job_resident_memory_bytes",
            "gpuq_job_cpu_seconds_total",
            "gpuq_job_cpu_usage_ratio",
            // Every running job has its info series, GPU or not.
            "gpuq_job_info");

    awaitState(id, "SUCCEEDED");
    await()
        .atMost(SOON)
        .untilAsserted(() -> assertThat(scrape().withLabel("job_id", id)).isEmpty());
  }

  @Test
  void an_attempt_that_dies_of_gpu_out_of_memory_is_counted_by_outcome_and_reason() {
    Map<String, String> oomFailed =
        Map.of("node", "test-node", "outcome", "FAILED", "reason", "OUT_OF_MEMORY");
    double before = scrape().value("gpuq_job_attempts_finished_total", oomFailed);

    String id =
        alice.submit(
            aJob()
                .shell(
                    "echo 'torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 20.00"
                        + " GiB. GPU 0 has a total capacity of 79.15 GiB' >&2; exit 1")
                .gpus(1)
                .gpuMemory("1GiB")
                .json());
    awaitState(id, "FAILED");

    assertThat(scrape().value("gpuq_job_attempts_finished_total", oomFailed)).isEqualTo(before + 1);
    assertThat(alice.job(id).get("failureReason").asString()).isEqualTo("OUT_OF_MEMORY");
  }

  @Test
  void a_succeeding_job_moves_the_success_counter_and_both_wait_histograms() {
    Map<String, String> node = Map.of("node", "test-node");
    Exposition before = scrape();

    String id = alice.submit(aJob().command("true").json());
    awaitState(id, "SUCCEEDED");

    Exposition after = scrape();
    Map<String, String> succeeded =
        Map.of("node", "test-node", "outcome", "SUCCEEDED", "reason", "");
    assertThat(after.value("gpuq_job_attempts_finished_total", succeeded))
        .isEqualTo(before.value("gpuq_job_attempts_finished_total", succeeded) + 1);
    for (String histogram :
        List.of("gpuq_job_queue_wait_seconds", "gpuq_job_submit_to_start_seconds")) {
      assertThat(after.value(histogram + "_count", node))
          .as(histogram)
          .isEqualTo(before.value(histogram + "_count", node) + 1);
      assertThat(after.value(histogram + "_bucket", Map.of("node", "test-node", "le", "+Inf")))
          .isEqualTo(after.value(histogram + "_count", node));
    }
  }

  @Test
  void a_job_that_waited_for_a_whole_gpu_lands_in_a_queue_wait_bucket_above_a_second() {
    Map<String, String> overOneSecond = Map.of("node", "test-node");
    Exposition before = scrape();
    String blocker = alice.submit(aJob().command("sleep", "2").gpus(2).json());
    awaitState(blocker, "RUNNING");

    String waiting = alice.submit(aJob().command("true").gpus(1).json());
    awaitState(waiting, "SUCCEEDED");

    Exposition after = scrape();
    assertThat(slowerThanOneSecond(after) - slowerThanOneSecond(before))
        .as("waits over 1 s, " + overOneSecond)
        .isGreaterThanOrEqualTo(1);
  }

  private static double slowerThanOneSecond(Exposition e) {
    return e.value("gpuq_job_queue_wait_seconds_bucket", Map.of("node", "test-node", "le", "+Inf"))
        - e.value("gpuq_job_queue_wait_seconds_bucket", Map.of("node", "test-node", "le", "1.0"));
  }

  @Test
  void a_job_far_over_its_budget_is_stopped_and_counted_by_the_guard() {
    Map<String, String> stop = Map.of("node", "test-node", "policy", "STOP");
    Map<String, String> overBudget =
        Map.of("node", "test-node", "outcome", "FAILED", "reason", "OVER_BUDGET");
    Exposition before = scrape();

    // 800 MiB against a budget of 64 MiB: past the guard's tolerance of 512 MiB.
    // It would hold them for ten minutes: only the guard ends it, however loaded the machine.
    String id =
        alice.submit(
            aJob()
                .command("python3", "-c", "import time; b = b'x' * (800 << 20); time.sleep(600)")
                .gpus(1)
                .gpuMemory("64MiB")
                .json());
    awaitState(id, "FAILED");

    Exposition after = scrape();
    assertThat(alice.job(id).get("failureReason").asString()).isEqualTo("OVER_BUDGET");
    assertThat(after.value("gpuq_guard_actions_total", stop))
        .isEqualTo(before.value("gpuq_guard_actions_total", stop) + 1);
    assertThat(after.value("gpuq_job_attempts_finished_total", overBudget))
        .isEqualTo(before.value("gpuq_job_attempts_finished_total", overBudget) + 1);
  }

  @Test
  void jobs_are_counted_in_all_six_states() {
    String id = alice.submit(aJob().command("true").json());
    awaitState(id, "SUCCEEDED");

    await()
        .atMost(SOON)
        .untilAsserted(
            () -> {
              Exposition e = scrape();
              assertThat(e.samples("gpuq_jobs"))
                  .extracting(s -> s.label("state"))
                  .containsExactlyInAnyOrder(
                      "QUEUED", "RUNNING", "SUCCEEDED", "FAILED", "CANCELLED", "PRUNED");
              assertThat(e.samples("gpuq_jobs")).allSatisfy(s -> assertThat(s.labels()).hasSize(1));
              assertThat(e.samples("gpuq_jobs"))
                  .allSatisfy(
                      s -> assertThat(s.value()).isNotNegative().isEqualTo(Math.rint(s.value())));
              assertThat(e.value("gpuq_jobs", Map.of("state", "SUCCEEDED"))).isPositive();
            });
  }

  @Test
  void gpu_polls_are_timed_and_failures_counted_from_zero() {
    Map<String, String> node = Map.of("node", "test-node");
    double polls = scrape().value("gpuq_gpu_poll_duration_seconds_count", node);

    await()
        .atMost(SOON)
        .untilAsserted(
            () ->
                assertThat(scrape().value("gpuq_gpu_poll_duration_seconds_count", node))
                    .isGreaterThanOrEqualTo(polls + 2));
    assertThat(scrape().value("gpuq_gpu_poll_errors_total", node)).isZero();
  }
}
