package io.gpuq.schedule;

import static io.gpuq.support.JobJson.aJob;
import static io.gpuq.support.SweepJson.aGridSweep;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.gpuq.GpuqApplication;
import io.gpuq.support.Gate;
import io.gpuq.support.HttpApi;
import io.gpuq.support.IntegrationTier;
import io.gpuq.support.TestAccounts;
import io.gpuq.text.MemorySize;
import java.math.BigDecimal;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import tools.jackson.databind.JsonNode;

/**
 * Placement by cores and host memory (issue 27), end to end with real workers: a gpuq on a node
 * that offers 3 CPUs and keeps 1 back, so that its jobs get 2 cores, and two emulated GPUs.
 */
@IntegrationTier
@DisplayName("A job starts only where its cores and host memory fit; one that never could is a 422")
class CorePlacementIntegrationTest {

  private static final String TOKEN = "cores-token-0123456789";
  private static final String NODE = "one-core-node";
  private static final Duration SOON = Duration.ofSeconds(30);

  private static Path dataDir;
  private static ConfigurableApplicationContext gpuq;
  private static HttpApi api;

  @BeforeAll
  static void startGpuqGivingOneCore() throws Exception {
    dataDir =
        Files.createTempDirectory(
            Files.createDirectories(Path.of("target/test-data")).toAbsolutePath(), "cores-");
    gpuq =
        new SpringApplicationBuilder(GpuqApplication.class)
            .run(
                "--server.port=0",
                "--gpuq.data-dir=" + dataDir,
                "--gpuq.gpu.backend=emulated",
                "--gpuq.node-name=" + NODE,
                "--gpuq.node.cpus=3",
                "--gpuq.node.reserved-cpus=1",
                "--gpuq.scheduler.cpu-slots=4",
                "--gpuq.scheduler.safety-net-interval=500ms",
                "--gpuq.placement.start-spacing=0s",
                "--gpuq.auth.tokens[0].name=cores",
                "--gpuq.auth.tokens[0].token=" + TOKEN,
                "--gpuq.auth.tokens[0].role=ADMIN",
                TestAccounts.runAsSelfArgument());
    api =
        new HttpApi(
            Integer.parseInt(gpuq.getEnvironment().getProperty("local.server.port")), TOKEN);
  }

  @AfterAll
  static void stopGpuq() {
    if (gpuq != null) {
      gpuq.close();
    }
  }

  @Test
  void the_jobs_behind_one_holding_both_cores_wait_with_the_numbers_and_start_when_it_ends()
      throws Exception {
    Gate gate = Gate.in(dataDir, "cores");
    String wide = api.submit(aJob().shell(gate.shellWait()).cpuOnly().cpus(2).json());
    try {
      await().atMost(SOON).until(() -> api.state(wide).equals("RUNNING"));
      String gpuJob = api.submit(aJob().shell("true").gpus(1).gpuMemory("1GiB").cpus(1).json());
      String cpuJob = api.submit(aJob().shell("true").cpuOnly().cpus(1).json());

      String waiting = "waiting for 1 core; 0 free on node " + NODE;
      await().atMost(SOON).until(() -> waiting.equals(reason(gpuJob)));
      await().atMost(SOON).until(() -> waiting.equals(reason(cpuJob)));
      assertThat(api.state(gpuJob)).isEqualTo("QUEUED");
      assertThat(api.state(cpuJob)).isEqualTo("QUEUED");

      gate.open();
      await().atMost(SOON).until(() -> api.state(gpuJob).equals("SUCCEEDED"));
      await().atMost(SOON).until(() -> api.state(cpuJob).equals("SUCCEEDED"));
    } finally {
      gate.open();
    }
  }

  @Test
  void a_job_behind_one_holding_most_of_the_host_memory_waits_with_the_numbers() throws Exception {
    long allocatable = allocatableMemory();
    // Two of these are never given at once: three quarters of what the node gives, in MiB.
    long bigMib = allocatable / 4 * 3 >> 20;
    long big = bigMib << 20;
    Gate gate = Gate.in(dataDir, "memory");
    String holder =
        api.submit(aJob().shell(gate.shellWait()).cpuOnly().cpus(1).memory(bigMib + "MiB").json());
    try {
      await().atMost(SOON).until(() -> api.state(holder).equals("RUNNING"));
      String next =
          api.submit(aJob().shell("true").cpuOnly().cpus(1).memory(bigMib + "MiB").json());
      // One that asks for no memory reserves none: it starts on the free core meanwhile.
      String small = api.submit(aJob().shell("true").cpuOnly().cpus(1).json());

      String waiting =
          "waiting for "
              + MemorySize.format(big)
              + " of host memory; "
              + MemorySize.format(allocatable - big)
              + " free on node "
              + NODE;
      await().atMost(SOON).until(() -> waiting.equals(reason(next)));
      await().atMost(SOON).until(() -> api.state(small).equals("SUCCEEDED"));
      assertThat(api.state(next)).isEqualTo("QUEUED");

      gate.open();
      await().atMost(SOON).until(() -> api.state(next).equals("SUCCEEDED"));
    } finally {
      gate.open();
    }
  }

  @Test
  void a_job_or_sweep_asking_more_cores_or_memory_than_any_live_node_gives_is_a_422() {
    HttpApi.Response cores = api.post("/api/v1/jobs", aJob().shell("true").cpus(3).json());
    assertThat(cores.status()).isEqualTo(422);
    assertThat(cores.contentType()).startsWith("application/problem+json");
    assertThat(cores.body()).contains("asks for 3 cores, this node gives its jobs 2");

    long tooMuch = (allocatableMemory() >> 20 << 20) + (1L << 30);
    HttpApi.Response memory =
        api.post("/api/v1/jobs", aJob().shell("true").memory((tooMuch >> 20) + "MiB").json());
    assertThat(memory.status()).isEqualTo(422);
    assertThat(memory.contentType()).startsWith("application/problem+json");
    assertThat(memory.body())
        .contains(
            "asks for "
                + MemorySize.format(tooMuch)
                + " of host memory, this node gives its jobs "
                + MemorySize.format(allocatableMemory()));

    HttpApi.Response sweep =
        api.post(
            "/api/v1/sweeps",
            aGridSweep()
                .values("lr", 0.1, 0.2)
                .field("resources", Map.of("gpus", 0, "cpus", 4))
                .json());
    assertThat(sweep.status()).isEqualTo(422);
    assertThat(sweep.body()).contains("asks for 4 cores, this node gives its jobs 2");
  }

  @Test
  void half_core_jobs_run_more_at_once_than_the_node_has_whole_cores() throws Exception {
    Gate gate = Gate.in(dataDir, "halves");
    List<String> halves = new ArrayList<>();
    try {
      for (int i = 0; i < 4; i++) {
        halves.add(
            api.submit(aJob().shell(gate.shellWait()).gpus(1).gpuMemory("1GiB").cpus(0.5).json()));
      }
      // Four tiny GPU runs of half a core on a node that gives its jobs 2 cores: all at once.
      for (String id : halves) {
        await().atMost(SOON).until(() -> api.state(id).equals("RUNNING"));
      }
      JsonNode shown = api.job(halves.get(0));
      assertThat(shown.path("resources").path("cpus").isNumber()).isTrue();
      assertThat(shown.path("resources").path("cpus").decimalValue())
          .isEqualByComparingTo(new BigDecimal("0.5"));
      assertThat(shown.path("resources").path("cpus").toString()).isEqualTo("0.5");
      assertThat(api.get("/api/v1/nodes").json().get(0).path("cpus").path("allocated").asDouble())
          .isEqualTo(2.0);

      String fifth = api.submit(aJob().shell("true").gpus(1).gpuMemory("1GiB").cpus(0.5).json());
      String waiting = "waiting for 0.5 core; 0 free on node " + NODE;
      await().atMost(SOON).until(() -> waiting.equals(reason(fifth)));

      gate.open();
      await().atMost(SOON).until(() -> api.state(fifth).equals("SUCCEEDED"));
      for (String id : halves) {
        await().atMost(SOON).until(() -> api.state(id).equals("SUCCEEDED"));
      }
    } finally {
      gate.open();
    }
  }

  @Test
  void a_whole_core_shows_as_a_whole_number_as_before() throws Exception {
    String id = api.submit(aJob().shell("true").cpuOnly().json());
    assertThat(api.job(id).path("resources").path("cpus").toString()).isEqualTo("1");
  }

  @Test
  void cores_that_are_none_negative_finer_than_thousandths_or_not_numbers_are_400_problems() {
    for (Object cpus : List.of(0, -1, -0.5, 0.005, 0.0125, 1.0001, "0.25", "NaN", true)) {
      HttpApi.Response refused = api.post("/api/v1/jobs", aJob().shell("true").cpus(cpus).json());
      assertThat(refused.status()).as("cpus %s", cpus).isEqualTo(400);
      assertThat(refused.contentType()).startsWith("application/problem+json");
      assertThat(refused.body()).contains("resources.cpus");
    }
    // NaN is no JSON at all: a 400 problem too.
    HttpApi.Response nan =
        api.post("/api/v1/jobs", "{\"command\":[\"true\"],\"resources\":{\"cpus\":NaN}}");
    assertThat(nan.status()).isEqualTo(400);
    assertThat(nan.contentType()).startsWith("application/problem+json");
  }

  private static String reason(String id) {
    return api.job(id).path("queuedReason").asString(null);
  }

  /** The host memory this node gives its jobs, as GET /api/v1/nodes shows it. */
  private static long allocatableMemory() {
    return api.get("/api/v1/nodes").json().get(0).get("memory").get("allocatable").asLong();
  }
}
