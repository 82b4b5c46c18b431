package io.gpuq.guard;

import static io.gpuq.support.JobJson.aJob;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.gpuq.support.Gate;
import io.gpuq.support.IntegrationTest;
import java.io.IOException;
import java.time.Duration;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.springframework.test.context.TestPropertySource;
import tools.jackson.databind.JsonNode;

// One GPU, so that neighbours certainly share it whatever else the suite left running.
@TestPropertySource(properties = "gpuq.gpu.emulated.count=1")
@DisplayName("One job's memory never takes down its neighbours")
class OutOfMemoryProtectionIntegrationTest extends IntegrationTest {

  private static final long GIB = 1L << 30;

  private static final Duration SOON = Duration.ofMinutes(2);

  /** A Python worker whose "GPU memory" (emulated: resident memory) grows to {@code mib}. */
  private static String growTo(int mib, int seconds) {
    return "import time\n"
        + "time.sleep(0.5)\n"
        + "block = bytearray("
        + mib
        + " * 1024 * 1024)\n"
        + "time.sleep("
        + seconds
        + ")\n";
  }

  /** A Python worker that holds {@code mib} until {@code release} opens. */
  private static String holdUntil(int mib, Gate release) {
    return "block = bytearray(b'x' * (" + mib + " * 1024 * 1024))\n" + release.pythonWait();
  }

  @Test
  void a_job_that_grows_past_its_budget_is_stopped_while_its_neighbour_on_the_same_gpu_finishes()
      throws IOException {
    Gate release = Gate.in(dataDir(), "release");
    String neighbour =
        alice.submit(
            aJob()
                .command("python3", "-c", holdUntil(100, release))
                .gpus(1)
                .gpuMemory("1GiB")
                .json());
    await().atMost(SOON).until(() -> alice.state(neighbour).equals("RUNNING"));
    String grower =
        alice.submit(
            aJob().command("python3", "-c", growTo(1300, 600)).gpus(1).gpuMemory("1GiB").json());
    await().atMost(SOON).until(() -> alice.state(grower).equals("RUNNING"));
    assertThat(gpuOf(grower)).isEqualTo(gpuOf(neighbour));

    await().atMost(SOON).until(() -> alice.state(grower).equals("FAILED"));
    JsonNode stopped = alice.job(grower);
    assertThat(stopped.get("failureReason").asString()).isEqualTo("OVER_BUDGET");
    assertThat(stopped.get("peakGpuMemoryBytes").asLong()).isGreaterThan(GIB);
    assertThat(alice.state(neighbour)).isEqualTo("RUNNING");

    release.open();
    await().atMost(SOON).until(() -> alice.state(neighbour).equals("SUCCEEDED"));
    assertThat(alice.job(neighbour).get("peakGpuMemoryBytes").asLong()).isBetween(50L << 20, GIB);
  }

  @Test
  void an_over_budget_stop_says_what_it_used_of_which_budget_on_which_gpu_and_ends_its_log_so() {
    String grower =
        alice.submit(
            aJob()
                .command("python3", "-c", "print('started', flush=True)\n" + growTo(1300, 600))
                .gpus(1)
                .gpuMemory("1GiB")
                .json());

    await().atMost(SOON).until(() -> alice.state(grower).equals("FAILED"));

    JsonNode job = alice.job(grower);
    int gpu = gpuOf(grower);
    // The tolerance is the larger of 64MiB (as the tests set it) and 10% of the budget,
    // 107374182 bytes: shown rounded down, as every size in a message is.
    String said =
        "stopped: it used \\d+(\\.\\d+)?GiB on GPU "
            + gpu
            + ", over its budget of 1GiB \\(\\+102\\.39MiB tolerance\\)";
    assertThat(job.get("failureReason").asString()).isEqualTo("OVER_BUDGET");
    assertThat(job.get("failureMessage").asString()).matches(said);
    assertThat(job.get("attempts").get(0).get("failureMessage").asString()).matches(said);
    String log = alice.get("/api/v1/jobs/" + grower + "/logs").body();
    assertThat(log)
        .startsWith("started\n")
        .endsWith("=== gpuq: " + job.get("failureMessage").asString() + " ===\n");
  }

  @Test
  void a_gpu_out_of_memory_in_the_log_is_OUT_OF_MEMORY_and_the_retry_gets_a_grown_budget() {
    String script =
        "if [ -f \"$TMPDIR/tried\" ]; then echo budget=$GPUQ_GPU_MEMORY_BYTES; exit 0; fi;"
            + " touch \"$TMPDIR/tried\"; echo budget=$GPUQ_GPU_MEMORY_BYTES;"
            + " echo 'torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB.'"
            + " >&2; exit 1";
    String id =
        alice.submit(
            aJob().shell(script).gpus(1).gpuMemory("1GiB").maxAttempts(2).oomGrowth(2).json());

    await().atMost(SOON).until(() -> alice.state(id).equals("SUCCEEDED"));

    JsonNode job = alice.job(id);
    assertThat(job.get("attempt").asInt()).isEqualTo(2);
    assertThat(job.get("resources").get("gpuMemory").asLong()).as("as submitted").isEqualTo(GIB);
    assertThat(job.get("effectiveResources").get("gpuMemory").asLong())
        .as("grown for the retry")
        .isEqualTo(2 * GIB);
    JsonNode first = job.get("attempts").get(0);
    assertThat(first.get("failureReason").asString()).isEqualTo("OUT_OF_MEMORY");
    assertThat(first.get("failureMessage").asString())
        .contains(
            "its budget was 1GiB on GPU " + first.get("placement").get("gpus").get(0).get("index"))
        .contains("CUDA out of memory");
    assertThat(first.get("budgetBytes").asLong()).isEqualTo(GIB);
    assertThat(job.get("attempts").get(1).get("budgetBytes").asLong()).isEqualTo(2 * GIB);
    assertThat(alice.get("/api/v1/jobs/" + id + "/logs").body())
        .contains("budget=" + GIB, "=== gpuq: attempt 2 ===", "budget=" + 2 * GIB);
  }

  @Test
  void the_jax_allocator_warning_alone_is_not_an_out_of_memory_failure() {
    String warning =
        "W external/xla/xla/tsl/framework/bfc_allocator.cc:310] Allocator (GPU_0_bfc) ran out of"
            + " memory trying to allocate 2.00GiB with freed_by_count=0. The caller indicates that"
            + " this is not a failure, but this may mean that there could be performance gains if"
            + " more memory were available.";
    String id = alice.submit(aJob().shell("echo '" + warning + "' >&2; exit 1").json());

    await().atMost(SOON).until(() -> alice.state(id).equals("FAILED"));

    assertThat(alice.job(id).get("failureReason").asString()).isEqualTo("EXIT_CODE");
  }

  private int gpuOf(String id) {
    return alice.job(id).get("placement").get("gpus").get(0).get("index").asInt();
  }
}
