package io.gpuq.api;

import static io.gpuq.support.JobJson.aJob;
import static io.gpuq.support.SweepJson.aGridSweep;
import static org.assertj.core.api.Assertions.assertThat;

import io.gpuq.support.GpuqProcess;
import io.gpuq.support.HttpApi;
import io.gpuq.support.IntegrationTier;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

/**
 * Issue 34: a job its owner's running limits could never let start, even with nothing else of
 * theirs running, is refused at submit as one no node could fit is (422), instead of queueing for
 * ever. One gpuq of its own, with two emulated GPUs of 16 GiB and owners with limits.
 */
@IntegrationTier
@DisplayName("A job its owner's limits never let start is a 422 at submit")
class NeverStartsUnderLimitsTest {

  private static final String ADMIN_TOKEN = "never-admin-0123456789";
  private static final String ALICE_TOKEN = "never-alice-0123456789";
  private static final String IDLE_TOKEN = "never-idle-0123456789ab";

  private static GpuqProcess gpuq;
  private static HttpApi admin;
  private static HttpApi alice;
  private static HttpApi idle;

  @BeforeAll
  static void start() throws Exception {
    Path dataDir =
        Files.createTempDirectory(
            Files.createDirectories(Path.of("target/test-data")).toAbsolutePath(), "never-");
    gpuq =
        GpuqProcess.start(
            dataDir,
            ADMIN_TOKEN,
            "--gpuq.auth.tokens[1].name=alice",
            "--gpuq.auth.tokens[1].token=" + ALICE_TOKEN,
            "--gpuq.auth.tokens[1].max-gpus=1",
            "--gpuq.auth.tokens[1].max-gpu-memory=4GiB",
            "--gpuq.auth.tokens[2].name=idle",
            "--gpuq.auth.tokens[2].token=" + IDLE_TOKEN,
            "--gpuq.auth.tokens[2].max-running-jobs=0",
            "--gpuq.worker.allow-shared-account=true");
    admin = gpuq.api(ADMIN_TOKEN);
    alice = gpuq.api(ALICE_TOKEN);
    idle = gpuq.api(IDLE_TOKEN);
  }

  @AfterAll
  static void stop() throws Exception {
    if (gpuq != null) {
      gpuq.close();
    }
  }

  @Test
  @DisplayName("gpus: 2 past max-gpus 1, and a fraction that adds up past it, name the limit")
  void more_gpus_than_max_gpus_is_422() {
    assertRefused(alice.post("/api/v1/jobs", aJob().gpus(2).json()), "resources.gpus")
        .contains("asks for 2 GPUs", "your limit of 1 GPU (max-gpus)", "could never start");
    assertRefused(
            alice.post("/api/v1/jobs", aJob().gpus(2).gpuFraction(0.75).json()),
            "resources.gpuFraction")
        .contains("asks for 1.5 of a GPU", "(max-gpus)");
  }

  @Test
  @DisplayName("GPU memory asked in bytes past max-gpu-memory, on one GPU or over two, names it")
  void more_gpu_memory_than_max_gpu_memory_is_422() {
    assertRefused(
            alice.post("/api/v1/jobs", aJob().gpus(1).gpuMemory("5GiB").json()),
            "resources.gpuMemory")
        .contains(
            "asks for 5GiB of GPU memory", "your limit of 4GiB of GPU memory (max-gpu-memory)");
    assertRefused(
            alice.post("/api/v1/jobs", aJob().gpus(2).gpuMemory("3GiB").json()),
            "resources.gpuMemory")
        .contains("asks for 6GiB of GPU memory");
  }

  @Test
  @DisplayName("max-running-jobs 0 lets no job start: every submission is a 422")
  void no_running_job_at_all_is_422() {
    assertRefused(idle.post("/api/v1/jobs", aJob().cpuOnly().json()), "resources")
        .contains("your limit of 0 running jobs (max-running-jobs)", "could never start");
  }

  @Test
  @DisplayName("a sweep whose trials could never start is a 422 and stores nothing")
  void a_sweep_of_trials_that_could_never_start_is_422() {
    String sweep =
        aGridSweep().values("lr", 0.1, 0.01).field("resources", Map.of("gpus", 2)).json();

    assertRefused(alice.post("/api/v1/sweeps", sweep), "resources.gpus").contains("(max-gpus)");
    assertThat(admin.get("/api/v1/sweeps").json().get("items")).isEmpty();
  }

  @Test
  @DisplayName(
      "what the limits let start alone is accepted: they hold it back only while others run")
  void a_job_within_the_limits_is_accepted() {
    for (String job :
        new String[] {
          aJob().gpus(1).command("sleep", "0").json(),
          aJob().gpus(2).gpuFraction(0.5).command("sleep", "0").json(),
          aJob().gpus(1).gpuMemory("4GiB").command("sleep", "0").json(),
          aJob().cpuOnly().command("sleep", "0").json(),
        }) {
      HttpApi.Response response = alice.post("/api/v1/jobs", job);
      assertThat(response.status()).as(response.body()).isEqualTo(201);
    }
  }

  private static org.assertj.core.api.AbstractStringAssert<?> assertRefused(
      HttpApi.Response response, String field) {
    assertThat(response.status()).as(response.body()).isEqualTo(422);
    assertThat(response.contentType()).startsWith("application/problem+json");
    JsonNode problem = response.json();
    assertThat(problem.get("errors").get(0).get("field").asString()).isEqualTo(field);
    return assertThat(problem.get("detail").asString());
  }
}
