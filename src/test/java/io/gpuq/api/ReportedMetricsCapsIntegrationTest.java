package io.gpuq.api;

import static io.gpuq.support.JobJson.aJob;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.gpuq.reported.MetricsCaps;
import io.gpuq.support.IntegrationTest;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.jdbc.core.JdbcTemplate;
import tools.jackson.databind.JsonNode;

/**
 * Runs that write without measure to GPUQ_METRICS_FILE, as the adversary of issue 24 did: a million
 * distinct names, tens of MiB of lines. gpuq keeps within its caps (docs/api.md) and records a
 * neighbour's end as promptly as ever.
 */
@DisplayName("Whatever a run writes to its metrics file, gpuq keeps within its caps")
class ReportedMetricsCapsIntegrationTest extends IntegrationTest {

  private static final Duration LONG = Duration.ofSeconds(180);

  @Autowired JdbcTemplate jdbc;

  @TempDir Path scratch;

  private void awaitState(String id, String state) {
    await().atMost(LONG).until(() -> alice.state(id).equals(state));
  }

  /** Waits until gpuq has read the ended job's file as far as it will: nothing more will come. */
  private void awaitReadToItsEnd(String id) {
    await()
        .atMost(LONG)
        .until(
            () ->
                jdbc.queryForObject(
                    "select metrics_done from jobs where id = ?", Boolean.class, id));
  }

  /** How many points and bytes of values the job's rows hold. */
  private Map<String, Object> stored(String id) {
    return jdbc.queryForMap(
        "select count(*) as points, coalesce(sum(length(metric_values)), 0) as bytes"
            + " from job_metrics where job_id = ?",
        id);
  }

  @Test
  void a_neighbours_short_job_is_recorded_promptly_while_another_writes_many_mib_of_lines()
      throws Exception {
    Path gate = scratch.resolve("gate");
    Path exited = scratch.resolve("exited");
    // 8 MiB of {"a":1} lines every 0.2 s (faster than gpuq reads them), until the gate opens or it
    // has written 160 MiB.
    String chattyScript =
        "import os, time\n"
            + "chunk = '{\"a\":1}\\n' * (1024 * 1024)\n"
            + "with open(os.environ['GPUQ_METRICS_FILE'], 'a') as f:\n"
            + "    for _ in range(20):\n"
            + "        f.write(chunk); f.flush()\n"
            + "        if os.path.exists("
            + pythonString(gate)
            + "): break\n"
            + "        time.sleep(0.2)\n";
    String chatty = alice.submit(aJob().command("python3", "-c", chattyScript).json());
    Path chattyFile = dataDir().resolve("work").resolve(chatty).resolve("metrics.jsonl");
    await().atMost(LONG).until(() -> Files.exists(chattyFile) && Files.size(chattyFile) > 16 << 20);

    String neighbourScript =
        "import time\n"
            + "time.sleep(1.5)\n"
            + "open("
            + pythonString(exited)
            + ", 'w').write(repr(time.time()))\n";
    String neighbour = alice.submit(aJob().command("python3", "-c", neighbourScript).json());
    awaitState(neighbour, "SUCCEEDED");
    Files.createFile(gate);

    Instant exit = epochSeconds(Files.readString(exited));
    Instant finished = Instant.parse(alice.job(neighbour).get("finishedAt").asString());
    // The issue measured 60 s behind a job's 16 MiB; a loaded machine is given a few seconds.
    assertThat(Duration.between(exit, finished)).isLessThan(Duration.ofSeconds(10));
    assertThat(alice.state(chatty)).as("still being read meanwhile").isIn("RUNNING", "SUCCEEDED");

    awaitState(chatty, "SUCCEEDED");
    awaitReadToItsEnd(chatty);
    Map<String, Object> rows = stored(chatty);
    assertThat(((Number) rows.get("points")).longValue())
        .isPositive()
        .isLessThanOrEqualTo(MetricsCaps.MAX_POINTS);
    // Each stored point is {"a":1.0}: the rows stay a few hundred KiB, not the 342 MB.
    assertThat(((Number) rows.get("bytes")).longValue()).isLessThan(1 << 20);
    JsonNode series = alice.get("/api/v1/jobs/" + chatty + "/metrics?limit=10").json();
    assertThat(series.get("series")).hasSize(10);
    assertThat(series.get("nextCursor").isNull()).isFalse();
  }

  @Test
  void jobs_writing_a_million_distinct_names_each_keep_their_first_64_and_count_the_rest() {
    // 10,000 lines of 100 new names each: a million names, about 14 MB per job.
    String script =
        "import os\n"
            + "with open(os.environ['GPUQ_METRICS_FILE'], 'a') as f:\n"
            + "    for i in range(10000):\n"
            + "        f.write('{' + ','.join('\"n%d\":1' % (i * 100 + j) for j in range(100))"
            + " + '}\\n')\n";
    String first = alice.submit(aJob().command("python3", "-c", script).json());
    String second = alice.submit(aJob().command("python3", "-c", script).json());

    for (String id : new String[] {first, second}) {
      awaitState(id, "SUCCEEDED");
      awaitReadToItsEnd(id);
      JsonNode job = alice.job(id);
      assertThat(job.get("metrics").get("latest").size()).isEqualTo(MetricsCaps.MAX_NAMES);
      assertThat(job.get("metrics").get("latest").has("n0")).isTrue();
      assertThat(job.get("metrics").get("latest").has("n63")).isTrue();
      assertThat(job.get("metrics").get("latest").has("n64")).isFalse();
      JsonNode metrics = alice.get("/api/v1/jobs/" + id + "/metrics").json();
      assertThat(metrics.get("series")).hasSize(1);
      assertThat(metrics.get("skippedValues").asLong())
          .isEqualTo(1_000_000 - MetricsCaps.MAX_NAMES);
      assertThat(metrics.get("truncated").asBoolean()).isFalse();
      assertThat(((Number) stored(id).get("points")).longValue()).isEqualTo(1);
      assertThat(
              jdbc.queryForObject(
                  "select length(metrics_latest) from jobs where id = ?", Integer.class, id))
          .isLessThan(4096);
    }
  }

  private static Instant epochSeconds(String text) {
    double seconds = Double.parseDouble(text.strip());
    return Instant.ofEpochMilli((long) (seconds * 1000));
  }

  private static String pythonString(Path path) {
    return "'" + path.toAbsolutePath().toString().replace("\\", "\\\\").replace("'", "\\'") + "'";
  }
}
