package io.gpuq.api;

import static io.gpuq.support.JobJson.aJob;
import static io.gpuq.support.SweepJson.aGridSweep;
import static io.gpuq.support.SweepJson.aRandomSweep;
import static io.gpuq.support.SweepJson.anExternalSweep;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.gpuq.support.HttpApi.Response;
import io.gpuq.support.IntegrationTest;
import io.gpuq.support.SweepJson;
import io.gpuq.sweep.SweepSize;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.StreamSupport;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.jdbc.core.JdbcTemplate;
import tools.jackson.databind.JsonNode;

@DisplayName("Sweeps over HTTP")
class SweepApiIntegrationTest extends IntegrationTest {

  private static final Duration SOON = Duration.ofSeconds(30);

  @Autowired JdbcTemplate jdbc;

  private JsonNode create(String json) {
    Response response = alice.post("/api/v1/sweeps", json);
    assertThat(response.status()).as(response.body()).isEqualTo(201);
    return response.json();
  }

  private JsonNode sweep(String id) {
    Response response = alice.get("/api/v1/sweeps/" + id);
    assertThat(response.status()).as(response.body()).isEqualTo(200);
    return response.json();
  }

  private List<JsonNode> trials(String id, String query) {
    Response response = alice.get("/api/v1/sweeps/" + id + "/trials" + query);
    assertThat(response.status()).as(response.body()).isEqualTo(200);
    return StreamSupport.stream(response.json().get("items").spliterator(), false).toList();
  }

  private long rows(String table) {
    return jdbc.queryForObject("select count(*) from " + table, Long.class);
  }

  private void awaitSweepState(String id, String state) {
    await()
        .atMost(SOON)
        .untilAsserted(() -> assertThat(sweep(id).get("state").asString()).isEqualTo(state));
  }

  @Nested
  @DisplayName("A grid sweep")
  class Grid {

    @Test
    void of_2_by_3_values_creates_6_trials_each_with_its_command_parameters_and_labels() {
      JsonNode sweep =
          create(
              aGridSweep()
                  .name("grid-2x3")
                  .command("sh", "-c", "echo lr={lr} opt={opt}", "trial")
                  .values("lr", 0.1, 0.003)
                  .values("opt", "adam", "sgd", "lion")
                  .label("team", "rl")
                  .json());
      String id = sweep.get("id").asString();

      assertThat(sweep.get("method").asString()).isEqualTo("grid");
      assertThat(sweep.get("trials").get("total").asLong()).isEqualTo(6);
      assertThat(sweep.get("trials").has("CANCELLED")).isTrue();
      List<JsonNode> trials = trials(id, "?order=created");
      assertThat(trials).extracting(t -> t.get("trial").asInt()).containsExactly(0, 1, 2, 3, 4, 5);
      assertThat(trials)
          .extracting(t -> t.get("parameters").toString())
          .containsExactly(
              "{\"lr\":0.1,\"opt\":\"adam\"}",
              "{\"lr\":0.1,\"opt\":\"sgd\"}",
              "{\"lr\":0.1,\"opt\":\"lion\"}",
              "{\"lr\":0.003,\"opt\":\"adam\"}",
              "{\"lr\":0.003,\"opt\":\"sgd\"}",
              "{\"lr\":0.003,\"opt\":\"lion\"}");

      JsonNode job = alice.job(trials.get(4).get("jobId").asString());
      assertThat(job.get("command").toString())
          .isEqualTo("[\"sh\",\"-c\",\"echo lr=0.003 opt=sgd\",\"trial\"]");
      assertThat(job.get("sweep").asString()).isEqualTo(id);
      assertThat(job.get("trial").asInt()).isEqualTo(4);
      assertThat(job.get("parameters").get("opt").asString()).isEqualTo("sgd");
      assertThat(job.get("labels").get("sweep").asString()).isEqualTo(id);
      assertThat(job.get("labels").get("lr").asString()).isEqualTo("0.003");
      assertThat(job.get("labels").get("team").asString()).isEqualTo("rl");

      Response byLabel = alice.get("/api/v1/jobs?label=sweep:" + id);
      assertThat(byLabel.json().get("items")).hasSize(6);
      awaitSweepState(id, "DONE");
      JsonNode done = sweep(id);
      assertThat(done.get("trials").get("SUCCEEDED").asLong()).isEqualTo(6);
      assertThat(done.get("finishedAt").isNull()).isFalse();
      assertThat(done.get("progress").asDouble()).isEqualTo(1.0);
      assertThat(
              alice.get("/api/v1/jobs/" + trials.get(4).get("jobId").asString() + "/logs").body())
          .isEqualTo("lr=0.003 opt=sgd\n");
    }

    @Test
    void each_trial_runs_with_its_sweep_number_and_parameters_in_its_environment() {
      String id =
          create(
                  aGridSweep()
                      .shell("echo \"$GPUQ_SWEEP_ID $GPUQ_TRIAL $GPUQ_PARAMS\"")
                      .values("seed", 1, 2)
                      .values("env", "cart pole")
                      .json())
              .get("id")
              .asString();

      awaitSweepState(id, "DONE");

      JsonNode second = trials(id, "").get(1);
      assertThat(alice.get("/api/v1/jobs/" + second.get("jobId").asString() + "/logs").body())
          .isEqualTo(id + " 1 {\"seed\":2,\"env\":\"cart pole\"}\n");
    }

    @Test
    void a_plain_job_shows_no_sweep_fields() {
      String job = alice.submit("{\"command\": [\"true\"], \"resources\": {\"gpus\": 0}}");

      JsonNode view = alice.job(job);

      assertThat(view.has("sweep")).isFalse();
      assertThat(view.has("trial")).isFalse();
      assertThat(view.has("parameters")).isFalse();
    }
  }

  @Nested
  @DisplayName("A random sweep")
  class Random {

    @Test
    void samples_the_same_trials_from_the_same_seed_and_shows_the_seed_it_drew() {
      String unseeded =
          aRandomSweep(5)
              .range("lr", 1e-5, 1e-2, "log", "float")
              .values("seed", 1, 2, 3)
              .metric("val_loss", "minimize")
              .field("earlyStopping", Map.of("type", "median"))
              .json();
      JsonNode drawn = create(unseeded);
      long seed = drawn.get("seed").asLong();

      JsonNode again =
          create(
              aRandomSweep(5)
                  .range("lr", 1e-5, 1e-2, "log", "float")
                  .values("seed", 1, 2, 3)
                  .seed(seed)
                  .json());

      assertThat(again.get("seed").asLong()).isEqualTo(seed);
      assertThat(drawn.get("earlyStopping").toString()).isEqualTo("{\"type\":\"median\"}");
      assertThat(parametersOf(again.get("id").asString()))
          .hasSize(5)
          .isEqualTo(parametersOf(drawn.get("id").asString()));
    }

    private List<String> parametersOf(String id) {
      return trials(id, "").stream().map(t -> t.get("parameters").toString()).toList();
    }
  }

  @Nested
  @DisplayName("An invalid sweep is a 400 naming the field, and stores nothing")
  class Invalid {

    private void assertRefused(String json, String field) {
      long sweeps = rows("sweeps");
      long jobs = rows("jobs");

      Response response = alice.post("/api/v1/sweeps", json);

      assertThat(response.status()).as(response.body()).isEqualTo(400);
      assertThat(response.contentType()).startsWith("application/problem+json");
      assertThat(response.json().get("errors").findValuesAsString("field")).contains(field);
      assertThat(rows("sweeps")).isEqualTo(sweeps);
      assertThat(rows("jobs")).isEqualTo(jobs);
    }

    @Test
    void an_unknown_placeholder() {
      assertRefused(
          aGridSweep().command("train", "--lr={lr}", "--wd={wd}").values("lr", 1).json(),
          "command[2]");
    }

    @Test
    void an_empty_grid() {
      assertRefused(aGridSweep().values("lr").json(), "parameters.lr.values");
    }

    @Test
    void a_grid_over_the_trial_limit() {
      Object[] hundred = new Object[100];
      Object[] hundredOne = new Object[101];
      for (int i = 0; i < hundredOne.length; i++) {
        hundredOne[i] = i;
        if (i < 100) {
          hundred[i] = i;
        }
      }
      assertRefused(aGridSweep().values("a", hundred).values("b", hundredOne).json(), "parameters");
    }

    @Test
    void the_reserved_label_sweep() {
      assertRefused(aGridSweep().values("lr", 1).label("sweep", "mine").json(), "labels.sweep");
    }

    @Test
    void trials_that_could_never_fit_are_a_422_and_store_nothing() {
      long sweeps = rows("sweeps");
      long jobs = rows("jobs");

      Response response =
          alice.post(
              "/api/v1/sweeps",
              aGridSweep().values("lr", 1, 2).field("resources", Map.of("gpus", 9)).json());

      assertThat(response.status()).as(response.body()).isEqualTo(422);
      assertThat(rows("sweeps")).isEqualTo(sweeps);
      assertThat(rows("jobs")).isEqualTo(jobs);
    }

    @Test
    void a_variable_gpuq_sets_for_trials() {
      assertRefused(
          aGridSweep().values("lr", 1).env("GPUQ_PARAMS", "{}").json(), "env.GPUQ_PARAMS");
    }

    @Test
    void a_trial_whose_job_is_invalid_names_the_template_field() {
      assertRefused(aGridSweep().values("lr", 1).field("timeout", "PT0S").json(), "timeout");
    }

    @Test
    void a_string_for_a_number_or_a_key_given_twice() {
      assertRefused(
          aGridSweep().values("lr", 1).field("maxConcurrent", "4").json(), "maxConcurrent");
      assertRefused(
          "{\"method\": \"grid\", \"method\": \"random\", \"command\": [\"true\"],"
              + " \"parameters\": {\"lr\": {\"values\": [1]}}}",
          "method");
    }
  }

  @Nested
  @DisplayName("A sweep's total size is bounded: 413 naming the limit, and nothing stored")
  class Size {

    private void assertTooLarge(String json, String limit, long max) {
      long sweeps = rows("sweeps");
      long jobs = rows("jobs");
      long labels = rows("job_labels");

      Response response = alice.post("/api/v1/sweeps", json);

      assertThat(response.status()).as(response.body()).isEqualTo(413);
      assertThat(response.contentType()).startsWith("application/problem+json");
      assertThat(response.json().get("limit").asString()).isEqualTo(limit);
      assertThat(response.json().get("max").asLong()).isEqualTo(max);
      assertThat(response.json().get("requested").asLong()).isGreaterThan(max);
      assertThat(response.json().get("detail").asString()).contains(String.format("%,d", max));
      assertThat(rows("sweeps")).isEqualTo(sweeps);
      assertThat(rows("jobs")).isEqualTo(jobs);
      assertThat(rows("job_labels")).isEqualTo(labels);
    }

    @Test
    void a_grid_of_1000_trials_with_a_half_megabyte_template_is_refused_before_it_is_built() {
      // 1,000 trials × 0.5 MB (a 250 KiB argument, a 250 KiB variable) is 500 MB of jobs: this
      // once ran the heap out (a 500).
      Object[] thousand = new Object[1000];
      for (int i = 0; i < thousand.length; i++) {
        thousand[i] = i;
      }
      String large = "x".repeat(250 * 1024);

      assertTooLarge(
          aGridSweep().values("i", thousand).command("echo", large).env("A", large).json(),
          "storedBytes",
          SweepSize.MAX_STORED_BYTES);
    }

    @Test
    void ten_thousand_trials_with_63_labels_of_256_characters_are_refused() {
      // This once stored 1.9 GB.
      SweepJson sweep = aRandomSweep(10_000).range("lr", 0.001, 0.1, null, null);
      for (int i = 0; i < 63; i++) {
        sweep.label("label-" + i, "v".repeat(256));
      }

      assertTooLarge(sweep.json(), "labels", SweepSize.MAX_LABELS);
    }

    @Test
    void an_external_sweep_is_bounded_at_each_added_trial() {
      // A 250 KiB argument and a 250 KiB variable (each near its own limit): each trial is about
      // 0.5 MB, so about 130 fit in 64 MiB.
      String large = "x".repeat(250 * 1024);
      String id =
          create(
                  anExternalSweep()
                      .range("lr", 0.001, 0.1, null, null)
                      .command("echo", large)
                      .env("A", large)
                      .json())
              .get("id")
              .asString();
      long perTrial = 1024 + 2 * 250 * 1024 + 512;
      int fit = (int) (SweepSize.MAX_STORED_BYTES / perTrial);
      // Counted as if those trials were added, without 64 MiB of rows: the count is what the
      // limit reads. Well below it a trial is added; at it, refused.
      jdbc.update("update sweeps set trial_count = ? where id = ?", fit - 5, id);
      assertThat(
              alice
                  .post("/api/v1/sweeps/" + id + "/trials", "{\"parameters\": {\"lr\": 0.01}}")
                  .status())
          .isEqualTo(201);
      jdbc.update("update sweeps set trial_count = ? where id = ?", fit, id);
      long jobs = rows("jobs");

      Response response =
          alice.post("/api/v1/sweeps/" + id + "/trials", "{\"parameters\": {\"lr\": 0.01}}");

      assertThat(response.status()).as(response.body()).isEqualTo(413);
      assertThat(response.contentType()).startsWith("application/problem+json");
      assertThat(response.json().get("limit").asString()).isEqualTo("storedBytes");
      assertThat(rows("jobs")).isEqualTo(jobs);
    }
  }

  @Nested
  @DisplayName("Idempotency-Key")
  class Idempotency {

    @Test
    void the_same_key_and_body_answer_the_first_sweep_and_create_nothing() {
      String json = aRandomSweep(3).range("x", 0, 1, "linear", "float").json();
      Response first = alice.post("/api/v1/sweeps", json, "Idempotency-Key", "sweep-key-1");
      long jobs = rows("jobs");

      Response retry = alice.post("/api/v1/sweeps", json, "Idempotency-Key", "sweep-key-1");

      assertThat(first.status()).isEqualTo(201);
      assertThat(retry.status()).isEqualTo(200);
      assertThat(retry.json().get("id").asString()).isEqualTo(first.json().get("id").asString());
      assertThat(retry.json().get("seed").asLong()).isEqualTo(first.json().get("seed").asLong());
      assertThat(rows("jobs")).isEqualTo(jobs);
    }

    @Test
    void the_same_key_with_another_body_is_a_422_naming_the_first_sweep() {
      Response first =
          alice.post(
              "/api/v1/sweeps",
              aGridSweep().values("x", 1).json(),
              "Idempotency-Key",
              "sweep-key-2");

      Response other =
          alice.post(
              "/api/v1/sweeps",
              aGridSweep().values("x", 2).json(),
              "Idempotency-Key",
              "sweep-key-2");

      assertThat(other.status()).isEqualTo(422);
      assertThat(other.json().get("sweepId").asString())
          .isEqualTo(first.json().get("id").asString());
    }
  }

  @Nested
  @DisplayName("Listing and rights")
  class ListingAndRights {

    @Test
    void lists_the_callers_sweeps_newest_first_page_by_page() {
      String older = create(aGridSweep().name("older").values("x", 1).json()).get("id").asString();
      String newer = create(aGridSweep().name("newer").values("x", 1).json()).get("id").asString();

      JsonNode first = alice.get("/api/v1/sweeps?limit=1").json();
      JsonNode second =
          alice.get("/api/v1/sweeps?limit=1&cursor=" + first.get("nextCursor").asString()).json();

      assertThat(first.get("items").get(0).get("id").asString()).isEqualTo(newer);
      assertThat(second.get("items").get(0).get("id").asString()).isEqualTo(older);
      assertThat(bob.get("/api/v1/sweeps?limit=1000").json().get("items").findValuesAsString("id"))
          .doesNotContain(older, newer);
      assertThat(admin.get("/api/v1/sweeps?limit=2").json().get("items").findValuesAsString("id"))
          .containsExactly(newer, older);
    }

    @Test
    void another_owner_gets_403_and_an_unknown_sweep_404() {
      String id = create(aGridSweep().values("x", 1).json()).get("id").asString();

      assertThat(bob.get("/api/v1/sweeps/" + id).status()).isEqualTo(403);
      assertThat(bob.get("/api/v1/sweeps/" + id + "/trials").status()).isEqualTo(403);
      assertThat(bob.post("/api/v1/sweeps/" + id + "/cancel").status()).isEqualTo(403);
      assertThat(admin.get("/api/v1/sweeps/" + id).status()).isEqualTo(200);
      Response unknown = alice.get("/api/v1/sweeps/01JD5R0000000000000000NONE");
      assertThat(unknown.status()).isEqualTo(404);
      assertThat(unknown.contentType()).startsWith("application/problem+json");
    }
  }

  @Nested
  @DisplayName("Cancelling a sweep")
  class Cancel {

    @Test
    void cancels_its_queued_and_running_trials_and_stops_their_processes() {
      String id =
          create(aGridSweep().shell("sleep 60").values("x", 1, 2, 3, 4, 5, 6, 7, 8, 9, 10).json())
              .get("id")
              .asString();
      await()
          .atMost(SOON)
          .untilAsserted(
              () -> assertThat(sweep(id).get("trials").get("RUNNING").asLong()).isPositive());

      Response cancelled = alice.post("/api/v1/sweeps/" + id + "/cancel");

      assertThat(cancelled.status()).as(cancelled.body()).isEqualTo(200);
      JsonNode view = cancelled.json();
      assertThat(view.get("state").asString()).isEqualTo("CANCELLED");
      assertThat(view.get("trials").get("CANCELLED").asLong()).isEqualTo(10);
      assertThat(view.get("finishedAt").isNull()).isFalse();
      for (JsonNode trial : trials(id, "")) {
        JsonNode job = alice.job(trial.get("jobId").asString());
        assertThat(job.get("state").asString()).isEqualTo("CANCELLED");
        await()
            .atMost(SOON)
            .untilAsserted(
                () ->
                    assertThat(alice.job(trial.get("jobId").asString()).get("attempts"))
                        .allSatisfy(a -> assertThat(a.get("finishedAt").isNull()).isFalse()));
      }
      assertThat(alice.post("/api/v1/sweeps/" + id + "/cancel").status()).isEqualTo(409);
    }
  }

  @Nested
  @DisplayName("An external sweep")
  class External {

    @Test
    void gets_trials_one_by_one_within_its_declared_space_then_is_done_once_closed() {
      String id =
          create(
                  anExternalSweep()
                      .command("echo", "{x}", "{opt}")
                      .range("x", 0, 1, "linear", "float")
                      .values("opt", "adam", "sgd")
                      .json())
              .get("id")
              .asString();
      assertThat(sweep(id).get("trials").get("total").asLong()).isZero();

      Response added =
          alice.post(
              "/api/v1/sweeps/" + id + "/trials",
              "{\"parameters\": {\"x\": 0.25, \"opt\": \"sgd\"}}");
      Response second =
          alice.post(
              "/api/v1/sweeps/" + id + "/trials",
              "{\"parameters\": {\"x\": 1, \"opt\": \"adam\"}}");

      assertThat(added.status()).as(added.body()).isEqualTo(201);
      assertThat(added.headers().firstValue("Location"))
          .contains("/api/v1/jobs/" + added.json().get("id").asString());
      assertThat(added.json().get("trial").asInt()).isZero();
      assertThat(second.json().get("trial").asInt()).isEqualTo(1);
      assertThat(added.json().get("command").toString()).isEqualTo("[\"echo\",\"0.25\",\"sgd\"]");
      assertThat(added.json().get("parameters").toString())
          .isEqualTo("{\"x\":0.25,\"opt\":\"sgd\"}");

      Response outOfRange =
          alice.post(
              "/api/v1/sweeps/" + id + "/trials", "{\"parameters\": {\"x\": 2, \"opt\": \"sgd\"}}");
      Response undeclared =
          alice.post(
              "/api/v1/sweeps/" + id + "/trials",
              "{\"parameters\": {\"x\": 0.5, \"opt\": \"sgd\", \"y\": 1}}");
      assertThat(outOfRange.status()).isEqualTo(400);
      assertThat(outOfRange.json().get("errors").findValuesAsString("field"))
          .containsExactly("parameters.x");
      assertThat(undeclared.status()).isEqualTo(400);
      assertThat(undeclared.json().get("errors").findValuesAsString("field"))
          .containsExactly("parameters.y");

      awaitSweepState(id, "RUNNING");
      await()
          .atMost(SOON)
          .untilAsserted(
              () -> assertThat(sweep(id).get("trials").get("SUCCEEDED").asLong()).isEqualTo(2));
      assertThat(sweep(id).get("state").asString())
          .as("still open: more trials may come")
          .isEqualTo("RUNNING");

      Response closed = alice.post("/api/v1/sweeps/" + id + "/close");

      assertThat(closed.status()).isEqualTo(200);
      assertThat(closed.json().get("state").asString()).isEqualTo("DONE");
      assertThat(closed.json().get("finishedAt").isNull()).isFalse();
      assertThat(
              alice
                  .post(
                      "/api/v1/sweeps/" + id + "/trials",
                      "{\"parameters\": {\"x\": 0.5, \"opt\": \"sgd\"}}")
                  .status())
          .isEqualTo(409);
    }

    @Test
    @DisplayName("a running trial pruned by its driver (issue 38) is stopped and stays PRUNED")
    void a_running_trial_pruned_by_its_driver_is_stopped_and_stays_pruned() {
      String id =
          create(anExternalSweep().command("sleep", "{s}").values("s", 30, 0).json())
              .get("id")
              .asString();
      String running =
          alice
              .post("/api/v1/sweeps/" + id + "/trials", "{\"parameters\": {\"s\": 30}}")
              .json()
              .get("id")
              .asString();
      String other = alice.submit(aJob().command("sleep", "30").json());
      await().atMost(SOON).until(() -> alice.state(running), "RUNNING"::equals);

      assertThat(alice.post("/api/v1/sweeps/" + id + "/trials/" + other + "/prune").status())
          .as("a job that is no trial of this sweep")
          .isEqualTo(404);
      assertThat(bob.post("/api/v1/sweeps/" + id + "/trials/" + running + "/prune").status())
          .as("another owner")
          .isIn(403, 404);
      Response pruned =
          alice.post(
              "/api/v1/sweeps/" + id + "/trials/" + running + "/prune",
              "{\"reason\": \"Optuna's pruner at step 3\"}");

      assertThat(pruned.status()).as(pruned.body()).isEqualTo(200);
      assertThat(pruned.json().get("state").asString()).isEqualTo("PRUNED");
      await()
          .atMost(SOON)
          .untilAsserted(() -> assertThat(alice.job(running).get("finishedAt").isNull()).isFalse());
      assertThat(alice.state(running)).isEqualTo("PRUNED");
      assertThat(
              alice
                  .post("/api/v1/sweeps/" + id + "/trials/" + running + "/prune")
                  .json()
                  .get("state")
                  .asString())
          .as("an ended trial is answered as it is")
          .isEqualTo("PRUNED");
      alice.post("/api/v1/jobs/" + other + "/cancel");

      String grid =
          create(aGridSweep().command("sleep", "{s}").values("s", 0).json()).get("id").asString();
      String trial = trials(grid, "").get(0).get("jobId").asString();
      assertThat(alice.post("/api/v1/sweeps/" + grid + "/trials/" + trial + "/prune").status())
          .as("a grid sweep has its own rule")
          .isEqualTo(409);
    }

    @Test
    void a_grid_sweep_takes_no_added_trial_and_cannot_be_closed() {
      String id = create(aGridSweep().values("x", 1).json()).get("id").asString();

      assertThat(
              alice
                  .post("/api/v1/sweeps/" + id + "/trials", "{\"parameters\": {\"x\": 1}}")
                  .status())
          .isEqualTo(409);
      assertThat(alice.post("/api/v1/sweeps/" + id + "/close").status()).isEqualTo(409);
    }
  }

  @Nested
  @DisplayName("The trials table and the best trial")
  class TrialsTable {

    /**
     * Five trials whose metric the test writes, as the metrics reader would: once their runs (which
     * report nothing) have ended and been read to their end, so that no read of the reader's writes
     * over the test's.
     */
    private String sweepWithValues(String goal, Double... bests) {
      String id =
          create(aGridSweep().values("x", 0, 1, 2, 3, 4).metric("val_loss", goal).json())
              .get("id")
              .asString();
      await()
          .atMost(SOON)
          .until(
              () ->
                  jdbc.queryForObject(
                      "select count(*) from jobs where sweep_id = ? and metrics_done = false",
                      Long.class,
                      id),
              unread -> unread == 0);
      for (int trial = 0; trial < bests.length; trial++) {
        jdbc.update(
            "update jobs set metric_best = ?, metric_value = ?, metrics_step = ?"
                + " where sweep_id = ? and trial = ?",
            bests[trial],
            bests[trial] == null ? null : bests[trial] + 1,
            bests[trial] == null ? null : 100L * trial,
            id,
            trial);
      }
      return id;
    }

    private List<Integer> order(String id, String query) {
      return trials(id, query).stream().map(t -> t.get("trial").asInt()).toList();
    }

    @Test
    void ordered_by_metric_shows_the_best_first_whatever_the_goal_and_no_value_last() {
      String minimize = sweepWithValues("minimize", 0.5, null, 0.2, 0.9, 0.2);
      String maximize = sweepWithValues("maximize", 0.5, null, 0.2, 0.9, 0.2);

      assertThat(order(minimize, "?order=metric")).containsExactly(2, 4, 0, 3, 1);
      assertThat(order(maximize, "?order=metric")).containsExactly(3, 0, 2, 4, 1);
      assertThat(order(minimize, "?order=-metric")).containsExactly(3, 0, 2, 4, 1);
      assertThat(order(minimize, "?order=created")).containsExactly(0, 1, 2, 3, 4);

      JsonNode row = trials(minimize, "?order=metric").get(0);
      assertThat(row.get("bestValue").asDouble()).isEqualTo(0.2);
      assertThat(row.get("value").asDouble()).isEqualTo(1.2);
      assertThat(row.get("step").asLong()).isEqualTo(200);
      assertThat(row.get("state").asString()).isNotEmpty();
    }

    @Test
    void pages_through_every_order_with_its_cursor() {
      String id = sweepWithValues("minimize", 0.5, null, 0.2, 0.9, 0.2);
      for (String order : List.of("metric", "-metric", "created")) {
        List<Integer> paged = new ArrayList<>();
        String cursor = null;
        do {
          Response page =
              alice.get(
                  "/api/v1/sweeps/"
                      + id
                      + "/trials?limit=2&order="
                      + order
                      + (cursor == null ? "" : "&cursor=" + cursor));
          page.json().get("items").forEach(t -> paged.add(t.get("trial").asInt()));
          JsonNode next = page.json().get("nextCursor");
          cursor = next.isNull() ? null : next.asString();
        } while (cursor != null);

        assertThat(paged).as(order).isEqualTo(order(id, "?order=" + order));
      }
    }

    @Test
    void the_sweep_names_its_completed_trial_with_the_best_final_value_as_optunas_best_trial() {
      // Final values 1.5, -, 1.2, 1.9, 1.3; bests at any step 0.5, -, 0.2, 0.9, 0.3.
      String minimize = sweepWithValues("minimize", 0.5, null, 0.2, 0.9, 0.3);
      String none = sweepWithValues("maximize");
      awaitSweepState(minimize, "DONE");
      // A pruned trial's mid-run dip is no result: trial 3 pruned after reaching 0.01.
      jdbc.update(
          "update jobs set state = 'PRUNED', metric_best = 0.01, metric_value = 0.01"
              + " where sweep_id = ? and trial = 3",
          minimize);

      JsonNode best = sweep(minimize).get("best");
      JsonNode anyStep = alice.get("/api/v1/sweeps/" + minimize + "?scope=all").json().get("best");

      assertThat(best.get("trial").asInt()).isEqualTo(2);
      assertThat(best.get("value").asDouble()).isEqualTo(1.2);
      assertThat(best.get("step").asLong()).isEqualTo(200);
      assertThat(best.get("parameters").get("x").asInt()).isEqualTo(2);
      assertThat(best.get("jobId").asString())
          .isEqualTo(trials(minimize, "").get(2).get("jobId").asString());
      assertThat(anyStep.get("trial").asInt()).isEqualTo(3);
      assertThat(anyStep.get("value").asDouble()).isEqualTo(0.01);
      assertThat(order(minimize, "?order=metric")).containsExactly(3, 2, 4, 0, 1);
      assertThat(order(minimize, "?order=metric&scope=all")).containsExactly(3, 2, 4, 0, 1);
      assertThat(sweep(none).get("best").isNull()).isTrue();
      assertThat(sweep(none).get("metric").get("goal").asString()).isEqualTo("maximize");
      assertThat(alice.get("/api/v1/sweeps/" + minimize + "?scope=best").status()).isEqualTo(400);
    }

    @Test
    void filters_by_state_and_refuses_a_bad_order_or_cursor() {
      String id = sweepWithValues("minimize");
      awaitSweepState(id, "DONE");

      assertThat(trials(id, "?state=SUCCEEDED")).hasSize(5);
      assertThat(trials(id, "?state=QUEUED")).isEmpty();
      Map<String, Integer> refused = new HashMap<>();
      for (String query :
          List.of("?order=best", "?cursor=not-one", "?state=DONE", "?limit=0", "?scope=best")) {
        refused.put(query, alice.get("/api/v1/sweeps/" + id + "/trials" + query).status());
      }
      assertThat(refused).allSatisfy((query, status) -> assertThat(status).isEqualTo(400));
    }
  }
}
