package io.gpuq.api;

import static io.gpuq.support.JobJson.aJob;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.gpuq.job.JobIds;
import io.gpuq.job.JobSpecs;
import io.gpuq.job.JobStore;
import io.gpuq.job.NewJob;
import io.gpuq.job.SweepTrial;
import io.gpuq.schedule.Scheduler;
import io.gpuq.support.IntegrationTest;
import java.time.Clock;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.jdbc.core.JdbcTemplate;
import tools.jackson.databind.JsonNode;

@DisplayName("Metrics a run reports through GPUQ_METRICS_FILE, read by gpuq as it polls")
class ReportedMetricsIntegrationTest extends IntegrationTest {

  private static final Duration SOON = Duration.ofSeconds(30);

  @Autowired JobStore store;
  @Autowired JdbcTemplate jdbc;
  @Autowired Scheduler scheduler;
  @Autowired Clock clock;

  /** A python3 run that reports each of {@code lines} as it is, one line at a time. */
  private static String reporting(String... lines) {
    StringBuilder script = new StringBuilder("import os\n");
    for (String line : lines) {
      script
          .append("with open(os.environ['GPUQ_METRICS_FILE'], 'a') as f: f.write(")
          .append(pythonString(line + "\n"))
          .append(")\n");
    }
    return script.toString();
  }

  private static String pythonString(String text) {
    return "'" + text.replace("\\", "\\\\").replace("'", "\\'").replace("\n", "\\n") + "'";
  }

  /** The job's series, once gpuq has read {@code points} points of it. */
  private JsonNode seriesOnceItHas(String id, int points) {
    await().atMost(SOON).untilAsserted(() -> assertThat(series(id)).hasSize(points));
    return series(id);
  }

  private JsonNode series(String id) {
    return alice.get("/api/v1/jobs/" + id + "/metrics").json().get("series");
  }

  private void awaitState(String id, String state) {
    await().atMost(SOON).until(() -> alice.state(id).equals(state));
  }

  @Test
  void a_job_reports_a_series_and_its_view_shows_the_latest_values_nan_as_null() {
    String id =
        alice.submit(
            aJob()
                .command(
                    "python3",
                    "-c",
                    reporting(
                        "{\"step\": 10, \"loss\": 0.9}",
                        "this is not a metrics line",
                        "{\"loss\": 0.5, \"acc\": 0.7}",
                        "{\"step\": 30, \"loss\": NaN}"))
                .json());
    awaitState(id, "SUCCEEDED");

    JsonNode series = seriesOnceItHas(id, 3);
    assertThat(series.get(0).get("step").asLong()).isEqualTo(10);
    assertThat(series.get(0).get("values").get("loss").asDouble()).isEqualTo(0.9);
    assertThat(series.get(0).get("at").asString()).isNotBlank();
    assertThat(series.get(1).get("step").asLong()).isEqualTo(11);
    assertThat(series.get(1).get("values").get("acc").asDouble()).isEqualTo(0.7);
    assertThat(series.get(2).get("values").get("loss").isNull()).isTrue();
    JsonNode metrics = alice.job(id).get("metrics");
    assertThat(metrics.get("step").asLong()).isEqualTo(30);
    assertThat(metrics.get("latest").get("acc").asDouble()).isEqualTo(0.7);
    assertThat(metrics.get("latest").get("loss").isNull()).isTrue();
    assertThat(metrics.has("best")).as("only a trial has a best value").isFalse();
    assertThat(alice.get("/api/v1/jobs/" + id + "/metrics?limit=1").json().get("series"))
        .hasSize(1);
  }

  @Test
  void a_retry_reports_into_a_file_of_its_own_and_its_view_shows_only_its_values() {
    // The first attempt reports three steps and fails; the retry, on the same node, reports one.
    String script =
        "import os, sys\n"
            + "first = not os.path.exists('tried')\n"
            + "open('tried', 'a').close()\n"
            + "with open(os.environ['GPUQ_METRICS_FILE'], 'a') as f:\n"
            + "    for step in ([1, 2, 3] if first else [1]):\n"
            + "        f.write('{\"step\": %d, \"loss\": %s}\\n' % (step, 9 if first else 0.5))\n"
            + "sys.exit(1 if first else 0)\n";
    String id = alice.submit(aJob().command("python3", "-c", script).maxAttempts(2).json());
    awaitState(id, "SUCCEEDED");

    JsonNode series = seriesOnceItHas(id, 4);
    assertThat(series.valueStream().map(p -> p.get("attempt").asInt() + ":" + p.get("step")))
        .containsExactly("1:1", "1:2", "1:3", "2:1");
    JsonNode metrics = alice.job(id).get("metrics");
    assertThat(metrics.get("step").asLong()).isEqualTo(1);
    assertThat(metrics.get("latest").get("loss").asDouble()).isEqualTo(0.5);
  }

  @Test
  void a_job_that_reports_nothing_has_no_metrics_and_an_empty_series() {
    String id = alice.submit(aJob().command("true").json());
    awaitState(id, "SUCCEEDED");

    assertThat(alice.job(id).get("metrics").isNull()).isTrue();
    assertThat(series(id)).isEmpty();
  }

  @Test
  void metrics_have_the_rights_of_their_job_and_a_bad_limit_is_a_problem_naming_it() {
    String id = alice.submit(aJob().command("true").json());

    assertThat(bob.get("/api/v1/jobs/" + id + "/metrics").status()).isEqualTo(403);
    assertThat(admin.get("/api/v1/jobs/" + id + "/metrics").status()).isEqualTo(200);
    assertThat(alice.get("/api/v1/jobs/no-such-job/metrics").status()).isEqualTo(404);
    var tooMany = alice.get("/api/v1/jobs/" + id + "/metrics?limit=10001");
    assertThat(tooMany.status()).isEqualTo(400);
    assertThat(tooMany.contentType()).startsWith("application/problem+json");
    assertThat(tooMany.body()).contains("limit");
  }

  @Test
  void the_series_comes_in_pages_that_a_cursor_follows_and_a_foreign_cursor_is_a_problem() {
    String[] lines = new String[25];
    for (int step = 0; step < lines.length; step++) {
      lines[step] = "{\"step\": " + step + ", \"loss\": " + step + "}";
    }
    String id = alice.submit(aJob().command("python3", "-c", reporting(lines)).json());
    awaitState(id, "SUCCEEDED");
    seriesOnceItHas(id, 25);

    java.util.List<Long> steps = new java.util.ArrayList<>();
    java.util.List<Integer> sizes = new java.util.ArrayList<>();
    String cursor = null;
    do {
      JsonNode page =
          alice
              .get(
                  "/api/v1/jobs/"
                      + id
                      + "/metrics?limit=10"
                      + (cursor == null ? "" : "&cursor=" + cursor))
              .json();
      page.get("series").forEach(point -> steps.add(point.get("step").asLong()));
      sizes.add(page.get("series").size());
      cursor = page.get("nextCursor").isNull() ? null : page.get("nextCursor").asString();
    } while (cursor != null);

    assertThat(sizes).containsExactly(10, 10, 5);
    assertThat(steps)
        .containsExactlyElementsOf(java.util.stream.LongStream.range(0, 25).boxed().toList());
    JsonNode whole = alice.get("/api/v1/jobs/" + id + "/metrics").json();
    assertThat(whole.get("nextCursor").isNull()).isTrue();
    assertThat(whole.get("skippedLines").asLong()).isZero();
    assertThat(whole.get("skippedValues").asLong()).isZero();
    assertThat(whole.get("truncated").asBoolean()).isFalse();
    var foreign = alice.get("/api/v1/jobs/" + id + "/metrics?cursor=bm90LWEtY3Vyc29y");
    assertThat(foreign.status()).isEqualTo(400);
    assertThat(foreign.contentType()).startsWith("application/problem+json");
    assertThat(foreign.body()).contains("cursor");
  }

  @Test
  void an_answer_of_points_with_many_long_names_stays_within_its_bytes_and_pages_the_rest() {
    // 1,000 points of 64 names of 100 characters: about 7 MB of JSON in all.
    String script =
        "import json, os\n"
            + "names = ['%s%d' % ('n' * 98, i) for i in range(64)]\n"
            + "with open(os.environ['GPUQ_METRICS_FILE'], 'a') as f:\n"
            + "    for step in range(1000):\n"
            + "        f.write(json.dumps(dict({'step': step}, **{n: step for n in names})) + '\\n')\n";
    String id = alice.submit(aJob().command("python3", "-c", script).json());
    awaitState(id, "SUCCEEDED");
    await()
        .atMost(SOON)
        .until(
            () ->
                jdbc.queryForObject(
                        "select count(*) from job_metrics where job_id = ?", Integer.class, id)
                    == 1000);

    int points = 0;
    int pages = 0;
    String cursor = null;
    do {
      var answer =
          alice.get(
              "/api/v1/jobs/" + id + "/metrics" + (cursor == null ? "" : "?cursor=" + cursor));
      assertThat(answer.body().length()).isLessThan(2_500_000);
      JsonNode page = answer.json();
      points += page.get("series").size();
      pages++;
      cursor = page.get("nextCursor").isNull() ? null : page.get("nextCursor").asString();
    } while (cursor != null);

    assertThat(points).isEqualTo(1000);
    assertThat(pages).isGreaterThanOrEqualTo(3);
  }

  /**
   * Trials stored as the sweep API will store them (its sweep row, jobs carrying the trial): one
   * completed quickly with a low loss, one running with a high loss, one running with a lower loss
   * that finishes on its own.
   */
  @Test
  void a_trial_behind_the_median_ends_pruned_and_its_process_is_gone() {
    // A real id: the sweep listing of the shared context orders by it.
    String sweepId = new io.gpuq.job.JobIds(java.time.Clock.systemUTC()).next();
    jdbc.update(
        "insert into sweeps (id, owner, name, method, definition, metric_name, metric_goal,"
            + " early_stopping, trial_count, closed, created_at, version)"
            + " values (?, 'alice', 'it', 'grid', '{}', 'loss', 'minimize', ?, 3, true, ?, 0)",
        sweepId,
        "{\"type\":\"median\",\"startupTrials\":1,\"warmupSteps\":0}",
        OffsetDateTime.now(clock));
    String quickAndGood = trial(sweepId, 0, "0.1", "40", "0");
    awaitState(quickAndGood, "SUCCEEDED");
    String bad = trial(sweepId, 1, "0.9", "600", "0.1");
    String good = trial(sweepId, 2, "0.05", "20", "0.05");

    awaitState(bad, "PRUNED");
    awaitState(good, "SUCCEEDED");
    JsonNode pruned = alice.job(bad);
    long pid = pruned.get("attempts").get(0).get("pid").asLong();
    await().atMost(SOON).until(() -> ProcessHandle.of(pid).isEmpty());
    assertThat(pruned.get("attempts").get(0).get("outcome").asString()).isEqualTo("PRUNED");
    assertThat(pruned.get("attempts").get(0).get("failureMessage").asString())
        .startsWith("stopped by the sweep's early-stopping rule (median) at step ");
    assertThat(pruned.get("metrics").get("best").get("loss").asDouble()).isEqualTo(0.9);
    assertThat(alice.job(good).get("metrics").get("best").get("loss").asDouble()).isEqualTo(0.05);
    assertThat(alice.get("/api/v1/jobs/" + bad + "/logs").body().strip())
        .matches(
            "(?s).*=== gpuq: stopped: pruned by the sweep's early-stopping rule \\(median\\) at"
                + " step \\d+ ===");
    assertThat(alice.get("/api/v1/jobs?state=PRUNED&limit=1000").json().get("items"))
        .anySatisfy(job -> assertThat(job.get("id").asString()).isEqualTo(bad));
  }

  /** A trial reporting {@code loss} at steps 1 to {@code steps}, {@code pause} seconds apart. */
  private String trial(String sweepId, int number, String loss, String steps, String pause) {
    String id = new JobIds(clock).next();
    String script =
        "import os, time\n"
            + "for step in range(1, "
            + steps
            + " + 1):\n"
            + "    with open(os.environ['GPUQ_METRICS_FILE'], 'a') as f:\n"
            + "        f.write('{\"step\": %d, \"loss\": "
            + loss
            + "}\\n' % step)\n"
            + "    time.sleep("
            + pause
            + ")\n";
    store.submit(
        new NewJob(
            id,
            "alice",
            JobSpecs.aSpec().name("trial-" + number).command("python3", "-c", script).build(),
            null,
            new SweepTrial(sweepId, number, "{}"),
            clock.instant(),
            List.of(),
            false,
            List.of()));
    scheduler.loop().wakeUp();
    return id;
  }
}
