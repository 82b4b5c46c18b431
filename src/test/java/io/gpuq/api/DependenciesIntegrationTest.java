package io.gpuq.api;

import static io.gpuq.support.JobJson.aJob;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.gpuq.support.Gate;
import io.gpuq.support.HttpApi.Response;
import io.gpuq.support.IntegrationTest;
import io.gpuq.support.JobJson;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

@DisplayName("Dependencies (issue 37): a job waits for others, held out of the queue")
class DependenciesIntegrationTest extends IntegrationTest {

  private static final Duration SOON = Duration.ofSeconds(30);

  private static JobJson after(JobJson job, String condition, String... ids) {
    List<Map<String, String>> dependsOn = new ArrayList<>();
    for (String id : ids) {
      dependsOn.add(Map.of("job", id, "condition", condition));
    }
    return job.field("dependsOn", dependsOn);
  }

  private final List<Gate> gates = new ArrayList<>();

  private Gate gate(String name) {
    Gate gate = Gate.in(dataDir(), name);
    gates.add(gate);
    return gate;
  }

  /** A test that failed before opening its gates leaves no job waiting on them for ever. */
  @AfterEach
  void openEveryGate() throws java.io.IOException {
    for (Gate gate : gates) {
      gate.open();
    }
  }

  private void awaitState(String id, String state) {
    await().atMost(SOON).untilAsserted(() -> assertThat(alice.state(id)).isEqualTo(state));
  }

  @Test
  @DisplayName(
      "A fails: afterok is cancelled naming A, its own dependent follows; afternotok and afterany"
          + " run")
  void a_failure_cancels_afterok_with_cascade_and_runs_afternotok_and_afterany() throws Exception {
    Gate gate = gate("dep-fail");
    String a = alice.submit(aJob().shell(gate.shellWait() + "; exit 3").json());
    String ok = alice.submit(after(aJob(), "afterok", a).json());
    String okOfOk = alice.submit(after(aJob(), "afterok", ok).json());
    String notOk = alice.submit(after(aJob(), "afternotok", a).json());
    String any = alice.submit(after(aJob(), "afterany", a).json());
    awaitState(a, "RUNNING");

    JsonNode waiting = alice.job(ok);
    assertThat(waiting.get("state").asString()).isEqualTo("QUEUED");
    assertThat(waiting.get("held").asBoolean()).isTrue();
    assertThat(waiting.get("queuedReason").asString())
        .isEqualTo("waiting for job " + a + " to succeed");
    assertThat(waiting.get("dependsOn").get(0).get("job").asString()).isEqualTo(a);
    assertThat(waiting.get("dependsOn").get(0).get("condition").asString()).isEqualTo("afterok");
    assertThat(alice.job(notOk).get("queuedReason").asString())
        .isEqualTo("waiting for job " + a + " to fail");
    assertThat(alice.job(any).get("queuedReason").asString())
        .isEqualTo("waiting for job " + a + " to end");
    assertThat(alice.job(okOfOk).get("queuedReason").asString())
        .isEqualTo("waiting for job " + ok + " to succeed");

    gate.open();

    awaitState(a, "FAILED");
    awaitState(ok, "CANCELLED");
    awaitState(okOfOk, "CANCELLED");
    awaitState(notOk, "SUCCEEDED");
    awaitState(any, "SUCCEEDED");
    assertThat(alice.job(ok).get("failureMessage").asString())
        .contains("afterok", "job " + a, "FAILED");
    assertThat(alice.job(okOfOk).get("failureMessage").asString())
        .contains("afterok", "job " + ok, "CANCELLED");
    assertThat(alice.job(ok).get("attempts").size()).isZero();
    assertThat(alice.job(ok).has("held")).isFalse();
  }

  @Test
  @DisplayName("A succeeds: afterok and afterany run, afternotok is cancelled")
  void a_success_runs_afterok_and_afterany_and_cancels_afternotok() throws Exception {
    Gate gate = gate("dep-ok");
    String a = alice.submit(aJob().shell(gate.shellWait()).json());
    String ok = alice.submit(after(aJob(), "afterok", a).json());
    String notOk = alice.submit(after(aJob(), "afternotok", a).json());
    String any = alice.submit(after(aJob(), "afterany", a).json());
    awaitState(a, "RUNNING");
    assertThat(alice.state(ok)).isEqualTo("QUEUED");

    gate.open();

    awaitState(ok, "SUCCEEDED");
    awaitState(any, "SUCCEEDED");
    awaitState(notOk, "CANCELLED");
    assertThat(alice.job(notOk).get("failureMessage").asString())
        .contains("afternotok", "job " + a, "SUCCEEDED");
    assertThat(Instant(alice.job(ok).get("startedAt").asString()))
        .isAfterOrEqualTo(Instant(alice.job(a).get("finishedAt").asString()));
  }

  private static java.time.Instant Instant(String text) {
    return java.time.Instant.parse(text);
  }

  @Test
  @DisplayName(
      "Held jobs take no place: an owner's job behind 40 held ones of higher priority runs")
  void held_jobs_hold_no_one_up() throws Exception {
    Gate gate = gate("dep-place");
    String a = alice.submit(aJob().shell(gate.shellWait()).json());
    List<String> held = new ArrayList<>();
    try {
      for (int i = 0; i < 40; i++) {
        held.add(alice.submit(after(aJob().priority(100), "afterok", a).json()));
      }
      String free = alice.submit(aJob().priority(0).json());

      awaitState(free, "SUCCEEDED");
      for (String id : held) {
        assertThat(alice.job(id).get("state").asString()).isEqualTo("QUEUED");
        assertThat(alice.job(id).get("attempts").size()).isZero();
      }
    } finally {
      held.forEach(id -> alice.post("/api/v1/jobs/" + id + "/cancel"));
      gate.open();
    }
    awaitState(a, "SUCCEEDED");
  }

  @Test
  @DisplayName("A job may wait for a sweep: afterok runs once every trial succeeded")
  void a_job_waits_for_a_sweep() {
    Gate gate = gate("dep-sweep");
    Response created =
        alice.post(
            "/api/v1/sweeps",
            "{\"method\": \"grid\", \"command\": [\"sh\", \"-c\", \""
                + gate.shellWait()
                + "\"], \"resources\": {\"gpus\": 0},"
                + " \"parameters\": {\"lr\": {\"values\": [1, 2]}}}");
    assertThat(created.status()).as(created.body()).isEqualTo(201);
    String sweep = created.json().get("id").asString();
    String ok =
        alice.submit(
            aJob()
                .field("dependsOn", List.of(Map.of("sweep", sweep, "condition", "afterok")))
                .json());
    String notOk =
        alice.submit(
            aJob()
                .field("dependsOn", List.of(Map.of("sweep", sweep, "condition", "afternotok")))
                .json());
    assertThat(alice.job(ok).get("queuedReason").asString())
        .isEqualTo("waiting for sweep " + sweep + " to succeed");

    try {
      gate.open();
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }

    awaitState(ok, "SUCCEEDED");
    awaitState(notOk, "CANCELLED");
    assertThat(alice.job(notOk).get("failureMessage").asString()).contains("sweep " + sweep);
  }

  @Test
  @DisplayName("A sweep may wait for a job: every trial is held until it succeeds")
  void a_sweeps_trials_wait_for_a_job() throws Exception {
    Gate gate = gate("dep-trials");
    String a = alice.submit(aJob().shell(gate.shellWait()).json());
    Response created =
        alice.post(
            "/api/v1/sweeps",
            "{\"method\": \"grid\", \"command\": [\"true\"], \"resources\": {\"gpus\": 0},"
                + " \"parameters\": {\"lr\": {\"values\": [1, 2]}},"
                + " \"dependsOn\": [{\"job\": \""
                + a
                + "\"}]}");
    assertThat(created.status()).as(created.body()).isEqualTo(201);
    String sweep = created.json().get("id").asString();
    awaitState(a, "RUNNING");
    JsonNode trials = alice.get("/api/v1/sweeps/" + sweep + "/trials").json().get("items");
    assertThat(trials.size()).isEqualTo(2);
    for (JsonNode trial : trials) {
      JsonNode job = alice.job(trial.get("jobId").asString());
      assertThat(job.get("state").asString()).isEqualTo("QUEUED");
      assertThat(job.get("queuedReason").asString())
          .isEqualTo("waiting for job " + a + " to succeed");
    }

    gate.open();

    for (JsonNode trial : trials) {
      awaitState(trial.get("jobId").asString(), "SUCCEEDED");
    }
  }

  @Test
  @DisplayName("A trial added later to an external sweep waits for the sweep's dependencies too")
  void a_trial_added_to_an_external_sweep_inherits_its_dependencies() throws Exception {
    Gate gate = gate("dep-external");
    String a = alice.submit(aJob().shell(gate.shellWait()).json());
    Response created =
        alice.post(
            "/api/v1/sweeps",
            io.gpuq.support.SweepJson.anExternalSweep()
                .range("lr", 0.001, 0.1, null, null)
                .command("true")
                .field("dependsOn", List.of(Map.of("job", a)))
                .json());
    assertThat(created.status()).as(created.body()).isEqualTo(201);
    String sweep = created.json().get("id").asString();
    awaitState(a, "RUNNING");

    Response added =
        alice.post("/api/v1/sweeps/" + sweep + "/trials", "{\"parameters\": {\"lr\": 0.01}}");

    assertThat(added.status()).as(added.body()).isEqualTo(201);
    String trial = added.json().get("id").asString();
    assertThat(alice.job(trial).get("queuedReason").asString())
        .isEqualTo("waiting for job " + a + " to succeed");
    gate.open();
    awaitState(trial, "SUCCEEDED");
  }

  @Test
  @DisplayName(
      "Unknown ids, another owner's job, more than 64 and a bad condition are 400s naming the"
          + " field; an ended job that can never satisfy the condition is a 422")
  void bad_dependencies_are_refused() throws Exception {
    String bobs = bob.submit(aJob().json());
    await().atMost(SOON).until(() -> bob.state(bobs).equals("SUCCEEDED"));

    assertProblem(
        alice.post("/api/v1/jobs", after(aJob(), "afterok", "01JNOSUCHJOB0000000000000").json()),
        400,
        "dependsOn[0].job");
    assertProblem(
        alice.post("/api/v1/jobs", after(aJob(), "afterok", bobs).json()), 400, "dependsOn[0].job");
    assertProblem(
        alice.post("/api/v1/jobs", after(aJob(), "afterwards", bobs).json()),
        400,
        "dependsOn[0].condition");
    assertProblem(
        alice.post(
            "/api/v1/jobs",
            aJob().field("dependsOn", List.of(Map.of("job", bobs, "sweep", "x"))).json()),
        400,
        "dependsOn[0]");
    String[] many = new String[65];
    java.util.Arrays.fill(many, bobs);
    assertProblem(
        bob.post("/api/v1/jobs", after(aJob(), "afterok", many).json()), 400, "dependsOn");
    Response never = bob.post("/api/v1/jobs", after(aJob(), "afternotok", bobs).json());
    assertThat(never.status()).as(never.body()).isEqualTo(422);
    assertThat(never.body()).contains("dependsOn[0]");

    // Judged at once: an ended job that satisfies it leaves nothing to wait for.
    String met = bob.submit(after(aJob(), "afterok", bobs).json());
    assertThat(bob.job(met).has("held")).isFalse();
    await().atMost(SOON).until(() -> bob.state(met).equals("SUCCEEDED"));
    // An admin may name anyone's job.
    String admins = admin.submit(after(aJob(), "afterany", bobs).json());
    await().atMost(SOON).until(() -> admin.state(admins).equals("SUCCEEDED"));
  }

  private static void assertProblem(Response response, int status, String field) {
    assertThat(response.status()).as(response.body()).isEqualTo(status);
    assertThat(response.contentType()).startsWith("application/problem+json");
    assertThat(response.json().get("errors").findValuesAsString("field")).contains(field);
  }
}
