package io.gpuq.api;

import static io.gpuq.support.JobJson.aJob;
import static io.gpuq.support.SweepJson.anExternalSweep;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.gpuq.support.Gate;
import io.gpuq.support.GpuqProcess;
import io.gpuq.support.HttpApi;
import io.gpuq.support.HttpApi.Response;
import io.gpuq.support.IntegrationTier;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.StreamSupport;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

/**
 * What a submitter, or an anonymous scraper, learns of other owners' work: that it exists and how
 * much it holds, never its ids or names. One gpuq of its own (real HTTP), because a reservation
 * must form at once ({@code max-wait-before-reservation=0s}) and the sweep limit is small.
 */
@IntegrationTier
@DisplayName("Others see less of an owner's work")
class LessForOthersToSeeTest {

  private static final String ADMIN_TOKEN = "visibility-admin-0123456789";
  private static final String ALICE_TOKEN = "visibility-alice-0123456789";
  private static final String BOB_TOKEN = "visibility-bob-0123456789ab";
  private static final int SWEEP_LIMIT = 2;
  private static final Duration SOON = Duration.ofSeconds(60);

  private static Path dataDir;
  private static GpuqProcess gpuq;
  private static HttpApi admin;
  private static HttpApi alice;
  private static HttpApi bob;
  private static HttpApi anonymous;

  private final List<String> submitted = new ArrayList<>();

  @BeforeAll
  static void start() throws Exception {
    dataDir = Files.createTempDirectory(Path.of("/tmp"), "gpuq-visibility-");
    gpuq =
        GpuqProcess.start(
            dataDir,
            ADMIN_TOKEN,
            "--gpuq.auth.tokens[1].name=alice",
            "--gpuq.auth.tokens[1].token=" + ALICE_TOKEN,
            "--gpuq.auth.tokens[2].name=bob",
            "--gpuq.auth.tokens[2].token=" + BOB_TOKEN,
            "--gpuq.worker.allow-shared-account=true",
            "--gpuq.placement.max-wait-before-reservation=0s",
            "--gpuq.placement.start-spacing=100ms",
            "--gpuq.gpu.poll-interval=250ms",
            "--gpuq.sweeps.max-unfinished-per-owner=" + SWEEP_LIMIT);
    admin = gpuq.api(ADMIN_TOKEN);
    alice = gpuq.api(ALICE_TOKEN);
    bob = gpuq.api(BOB_TOKEN);
    anonymous = gpuq.api(null);
  }

  @AfterAll
  static void stop() throws Exception {
    if (gpuq != null) {
      gpuq.close();
    }
  }

  @AfterEach
  void cancelWhatIsLeft() {
    submitted.forEach(id -> admin.post("/api/v1/jobs/" + id + "/cancel"));
  }

  private String submit(HttpApi owner, String json) {
    String id = owner.submit(json);
    submitted.add(id);
    return id;
  }

  /** Holds about 50 MiB, measured as GPU memory on the emulated GPUs, until the gate opens. */
  private static String holdingBothGpusUntil(Gate gate, String name) {
    return aJob()
        .name(name)
        .command("python3", "-c", "b = b'x' * (50 << 20)\n" + gate.pythonWait())
        .gpus(2)
        .json();
  }

  private static Gate aGate() {
    return Gate.in(dataDir, "release");
  }

  private static List<JsonNode> processes(HttpApi caller) {
    JsonNode gpus = caller.get("/api/v1/gpus").json();
    return StreamSupport.stream(gpus.spliterator(), false)
        .flatMap(gpu -> StreamSupport.stream(gpu.get("processes").spliterator(), false))
        .toList();
  }

  private static void awaitState(HttpApi owner, String id, String state) {
    await()
        .atMost(SOON)
        .untilAsserted(
            () -> assertThat(owner.state(id)).as(() -> owner.job(id).toString()).isEqualTo(state));
  }

  @Test
  @DisplayName(
      "a submitter's GET /api/v1/gpus shows another owner's process as \"another owner's job\","
          + " without pid or job id; its owner and admins see both")
  void gpusHideOtherOwnersProcesses() throws Exception {
    Gate gate = aGate();
    String alices = submit(alice, holdingBothGpusUntil(gate, "alices-secret-run"));
    awaitState(alice, alices, "RUNNING");
    // Until every process of the job has been measured: a process just started reads 0 bytes.
    await()
        .atMost(SOON)
        .untilAsserted(
            () ->
                assertThat(processes(admin))
                    .filteredOn(p -> alices.equals(p.get("jobId").asString()))
                    .isNotEmpty()
                    .allSatisfy(p -> assertThat(p.get("memoryUsedBytes").asLong()).isPositive()));

    Response bobsView = bob.get("/api/v1/gpus");
    assertThat(bobsView.body()).doesNotContain(alices).doesNotContain("alices-secret-run");
    List<JsonNode> seenByBob = processes(bob);
    assertThat(seenByBob)
        .isNotEmpty()
        .allSatisfy(
            p -> {
              assertThat(p.get("note").asString()).isEqualTo("another owner's job");
              assertThat(p.get("pid").isNull()).isTrue();
              assertThat(p.get("jobId").isNull()).isTrue();
              assertThat(p.get("memoryUsedBytes").asLong()).isPositive();
            });
    assertThat(processes(alice))
        .anySatisfy(
            p -> {
              assertThat(p.get("jobId").asString()).isEqualTo(alices);
              assertThat(p.get("pid").asLong()).isPositive();
              assertThat(p.get("note").isNull()).isTrue();
            });
    gate.open();
  }

  /**
   * Changed with fair share (issue 26): the reservation's head is the first blocked job in
   * fair-share order, so bob's job (bob holds nothing, alice both GPUs) holds it, no longer alice's
   * earlier one; alice is the submitter who must not read bob's job id.
   */
  @Test
  @DisplayName(
      "a submitter's queuedReason names no other owner's job: a reservation is another owner's"
          + " job's; its own reservation and an admin's view keep the id")
  void queuedReasonNamesNoOtherOwnersJob() throws Exception {
    Gate gate = aGate();
    String running = submit(alice, holdingBothGpusUntil(gate, "alices-first"));
    awaitState(alice, running, "RUNNING");
    // With no grace before a reservation, the first blocked job in fair-share order holds one at
    // once: bob's, since bob holds nothing.
    String bobs = submit(bob, aJob().shell("true").gpus(1).json());
    String alices = submit(alice, aJob().shell("true").gpus(1).json());
    String bobsNext = submit(bob, aJob().shell("true").gpus(1).json());

    String reservedForBobs = "a GPU is reserved for job " + bobs + ", which has waited longest";
    await()
        .atMost(SOON)
        .untilAsserted(
            () ->
                assertThat(admin.job(alices).get("queuedReason").asString())
                    .isEqualTo(reservedForBobs));
    assertThat(alice.job(alices).get("queuedReason").asString())
        .isEqualTo("a GPU is reserved for another owner's job, which has waited longest");
    Response alicesList = alice.get("/api/v1/jobs?state=QUEUED");
    assertThat(alicesList.body()).doesNotContain(bobs);
    assertThat(alicesList.json().get("items").get(0).get("queuedReason").asString())
        .isEqualTo("a GPU is reserved for another owner's job, which has waited longest");
    assertThat(bob.job(bobsNext).get("queuedReason").asString()).isEqualTo(reservedForBobs);
    gate.open();
  }

  @Test
  @DisplayName(
      "anonymous /actuator/prometheus shows a running job's id but not its name unless the"
          + " operator opts in")
  void prometheusShowsNoJobNamesByDefault() throws Exception {
    Gate gate = aGate();
    String id =
        submit(
            alice,
            aJob()
                .name("alices-private-experiment")
                .command("python3", "-c", gate.pythonWait())
                .cpuOnly()
                .json());
    awaitState(alice, id, "RUNNING");

    await()
        .atMost(SOON)
        .untilAsserted(
            () ->
                assertThat(jobInfo(anonymous.get("/actuator/prometheus").body(), id))
                    .singleElement()
                    .satisfies(line -> assertThat(line).contains("name=\"\"")));
    assertThat(anonymous.get("/actuator/prometheus").body())
        .doesNotContain("alices-private-experiment");
    gate.open();
  }

  private static List<String> jobInfo(String exposition, String jobId) {
    return exposition
        .lines()
        .filter(line -> line.startsWith("gpuq_job_info{"))
        .filter(line -> line.contains("job_id=\"" + jobId + "\""))
        .toList();
  }

  @Test
  @DisplayName(
      "a submitter's next sweep past the unfinished-sweep limit is 429 problem+json naming the"
          + " limit and the count, and nothing is stored; another owner is not held back")
  void unfinishedSweepsPerOwnerAreBounded() {
    String external = anExternalSweep().values("x", 1, 2).json();
    for (int i = 0; i < SWEEP_LIMIT; i++) {
      assertThat(bob.post("/api/v1/sweeps", external).status()).isEqualTo(201);
    }

    Response refused = bob.post("/api/v1/sweeps", external);

    assertThat(refused.status()).as(refused.body()).isEqualTo(429);
    assertThat(refused.contentType()).startsWith("application/problem+json");
    assertThat(refused.json().get("limit").asInt()).isEqualTo(SWEEP_LIMIT);
    assertThat(refused.json().get("unfinished").asInt()).isEqualTo(SWEEP_LIMIT);
    assertThat(refused.json().get("detail").asString())
        .contains("gpuq.sweeps.max-unfinished-per-owner");
    assertThat(bob.get("/api/v1/sweeps").json().get("items")).hasSize(SWEEP_LIMIT);

    String closing = bob.get("/api/v1/sweeps").json().get("items").get(0).get("id").asString();
    assertThat(bob.post("/api/v1/sweeps/" + closing + "/cancel").status()).isEqualTo(200);
    await()
        .atMost(SOON)
        .untilAsserted(
            () -> assertThat(bob.post("/api/v1/sweeps", external).status()).isEqualTo(201));
    assertThat(admin.post("/api/v1/sweeps", external).status()).isEqualTo(201);
  }
}
