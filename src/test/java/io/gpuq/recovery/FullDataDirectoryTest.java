package io.gpuq.recovery;

import static io.gpuq.support.JobJson.aJob;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.gpuq.support.GpuqProcess;
import io.gpuq.support.HttpApi;
import io.gpuq.support.IntegrationTier;
import io.gpuq.support.Tmpfs;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIf;
import tools.jackson.databind.JsonNode;

@IntegrationTier
@DisplayName("A full data directory: gpuq says so, refuses new jobs, recovers, and runs none twice")
@EnabledIf(
    value = "io.gpuq.support.Tmpfs#canMount",
    disabledReason = "mounting a tmpfs needs root (CI runs as root)")
class FullDataDirectoryTest {

  private static final String TOKEN = "full-disk-token-0123456789";
  private static final long MIN_FREE = 16L * 1024 * 1024;
  private static final Pattern FREE_GAUGE =
      Pattern.compile("^gpuq_storage_free_bytes\\{node=\"[^\"]*\"} (\\S+)$", Pattern.MULTILINE);
  private static final Duration LONG = Duration.ofSeconds(90);

  @Test
  void a_job_that_fills_the_disk_stops_new_work_until_space_returns_and_no_job_runs_twice()
      throws Exception {
    try (Tmpfs disk = Tmpfs.mount("full-disk", 48)) {
      Path dataDir = disk.root().resolve("data");
      Path outside = disk.root().getParent();
      Path go = outside.resolve("go");
      Path ran = outside.resolve("ran.txt");
      Path fillNow = outside.resolve("fill-now");
      Map<String, Long> pids = new java.util.HashMap<>();
      String waitThenRecord =
          "while [ ! -e " + go + " ]; do sleep 0.2; done; echo $GPUQ_JOB_ID >> " + ran + "; exit 0";
      String[] args = {
        "--gpuq.storage.min-free=16MiB",
        "--gpuq.storage.check-interval=200ms",
        "--gpuq.scheduler.cpu-slots=4"
      };
      String filler;
      String unwritten;
      try (GpuqProcess first = GpuqProcess.start(dataDir, TOKEN, args)) {
        HttpApi api = first.api(TOKEN);
        HttpApi anonymous = first.api(null);
        assertThat(anonymous.get("/actuator/health/readiness").status()).isEqualTo(200);
        unwritten = api.submit(aJob().cpuOnly().maxAttempts(3).shell(waitThenRecord).json());
        // A job fills the data directory's disk from its work directory, once told to.
        filler =
            api.submit(
                aJob()
                    .cpuOnly()
                    .maxAttempts(3)
                    .shell(
                        "while [ ! -e "
                            + fillNow
                            + " ]; do sleep 0.2; done; head -c 64M /dev/zero > fill; "
                            + waitThenRecord)
                    .json());
        // Both started and their PIDs in the database before the disk is full.
        pids.put(filler, await().atMost(LONG).until(() -> pid(api, filler), pid -> pid > 0));
        pids.put(unwritten, await().atMost(LONG).until(() -> pid(api, unwritten), pid -> pid > 0));
        Files.writeString(fillNow, "");

        await()
            .atMost(LONG)
            .untilAsserted(
                () ->
                    assertThat(anonymous.get("/actuator/health/readiness").status())
                        .isEqualTo(503));
        HttpApi.Response refused = api.post("/api/v1/jobs", aJob().cpuOnly().json());
        assertThat(refused.status()).isEqualTo(507);
        assertThat(refused.contentType()).startsWith("application/problem+json");
        assertThat(refused.json().get("status").asInt()).isEqualTo(507);
        assertThat(refused.json().get("detail").asString()).contains("gpuq.storage.min-free");
        assertThat(freeBytes(anonymous)).isLessThan(MIN_FREE);

        // Space returns: gpuq is ready again and takes and runs jobs, without a restart.
        Files.delete(dataDir.resolve("work").resolve(filler).resolve("fill"));
        await()
            .atMost(LONG)
            .untilAsserted(
                () ->
                    assertThat(anonymous.get("/actuator/health/readiness").status())
                        .isEqualTo(200));
        assertThat(freeBytes(anonymous)).isGreaterThanOrEqualTo(MIN_FREE);
        String after =
            await()
                .atMost(LONG)
                .pollInterval(Duration.ofMillis(500))
                .until(
                    () -> api.post("/api/v1/jobs", aJob().cpuOnly().command("true").json()),
                    response -> response.status() == 201)
                .json()
                .get("id")
                .asString();
        await().atMost(LONG).ignoreExceptions().until(() -> api.state(after).equals("SUCCEEDED"));

        first.crash();
      }

      // While gpuq is down, the disk is full again and both waiting jobs end. The wrapper writes
      // its code over the placeholder gpuq left, which needs no space.
      Path testFill = disk.root().resolve("test-fill");
      Tmpfs.fill(testFill);
      Files.writeString(go, "");
      await()
          .atMost(LONG)
          .until(() -> pids.values().stream().allMatch(pid -> ProcessHandle.of(pid).isEmpty()));
      assertThat(Files.readString(exitFile(dataDir, filler)).lines().findFirst()).contains("0");
      // What a wrapper leaves where even that write failed (a copy-on-write file system): an
      // empty exit file.
      Files.write(exitFile(dataDir, unwritten), new byte[0]);
      Files.delete(testFill);

      try (GpuqProcess second = GpuqProcess.start(dataDir, TOKEN, args)) {
        HttpApi api = second.api(TOKEN);
        await()
            .atMost(LONG)
            .ignoreExceptions()
            .until(
                () ->
                    List.of("SUCCEEDED", "FAILED").contains(api.state(filler))
                        && List.of("SUCCEEDED", "FAILED").contains(api.state(unwritten)));

        JsonNode succeeded = api.job(filler);
        assertThat(succeeded.get("state").asString()).isEqualTo("SUCCEEDED");
        assertThat(succeeded.get("exitCode").asInt()).isZero();
        assertThat(succeeded.get("attempts")).hasSize(1);

        JsonNode notRetried = api.job(unwritten);
        assertThat(notRetried.get("state").asString()).isEqualTo("FAILED");
        assertThat(notRetried.get("failureReason").asString()).isEqualTo("EXIT_UNRECORDED");
        assertThat(notRetried.get("failureMessage").asString()).contains("not retried");
        assertThat(notRetried.get("attempts")).hasSize(1);
      }
      Map<String, Long> runs =
          Files.readAllLines(ran).stream()
              .collect(Collectors.groupingBy(Function.identity(), Collectors.counting()));
      assertThat(runs).isEqualTo(Map.of(filler, 1L, unwritten, 1L));
    }
  }

  private static long freeBytes(HttpApi anonymous) {
    Matcher gauge = FREE_GAUGE.matcher(anonymous.get("/actuator/prometheus").body());
    assertThat(gauge.find()).as("gpuq_storage_free_bytes is exported").isTrue();
    return (long) Double.parseDouble(gauge.group(1));
  }

  private static Path exitFile(Path dataDir, String jobId) {
    return dataDir.resolve("jobs").resolve(jobId).resolve("attempt-1.exit");
  }

  /** The worker's PID as the database has it; 0 until it does. */
  private static long pid(HttpApi api, String jobId) {
    JsonNode attempts = api.job(jobId).get("attempts");
    return attempts.isEmpty() || attempts.get(0).get("pid").isNull()
        ? 0
        : attempts.get(0).get("pid").asLong();
  }
}
