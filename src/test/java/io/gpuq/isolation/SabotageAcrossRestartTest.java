package io.gpuq.isolation;

import static io.gpuq.support.JobJson.aJob;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.gpuq.fs.SafeFiles;
import io.gpuq.support.GpuqProcess;
import io.gpuq.support.HttpApi;
import io.gpuq.support.IntegrationTier;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

/**
 * A job that replaces its log with a FIFO while gpuq is down: the gpuq that starts next reads how
 * the job ended during its recovery, before it answers its health checks. Opening that FIFO must
 * not hold its start forever.
 */
@IntegrationTier
@DisplayName("A FIFO left in place of a log while gpuq was down does not stop it from starting")
class SabotageAcrossRestartTest {

  private static final String TOKEN = "sabotage-token-0123456789";

  @Test
  void gpuq_restarts_healthy_and_the_job_fails_saying_its_log_was_a_fifo() throws Exception {
    Path dataDir =
        Files.createTempDirectory(
            Files.createDirectories(Path.of("target/test-data")).toAbsolutePath(), "sabotage-");
    // The job sabotages its log once the test says gpuq is down, not after a fixed sleep.
    Path gpuqIsDown = dataDir.resolve("gpuq-is-down");
    String id;
    long workerPid;
    try (GpuqProcess first = GpuqProcess.start(dataDir, TOKEN)) {
      HttpApi api = first.api(TOKEN);
      id =
          api.submit(
              aJob()
                  .command(
                      "sh",
                      "-c",
                      "LOG=\"$1/jobs/$GPUQ_JOB_ID/output.log\";"
                          + " while [ ! -e \"$2\" ]; do sleep 0.1; done; rm -f \"$LOG\";"
                          + " mkfifo \"$LOG\"; exit 1",
                      "sh",
                      dataDir.toString(),
                      gpuqIsDown.toString())
                  .json());
      // Once the database has its worker's pid, the process file is on disk too.
      workerPid =
          await()
              .atMost(Duration.ofSeconds(60))
              .pollInterval(Duration.ofMillis(100))
              .until(() -> workerPid(api.job(id)), pid -> pid > 0);
      first.crash();
    }
    Files.createFile(gpuqIsDown);

    // The worker outlives gpuq (its own session); wait until it has made its FIFO and exited.
    Path jobDir = dataDir.resolve("jobs").resolve(id);
    assertThat(SafeFiles.readSmall(jobDir.resolve("attempt-1.pid"), 256).orElseThrow())
        .startsWith(workerPid + " ");
    await()
        .atMost(Duration.ofSeconds(120))
        .pollInterval(Duration.ofMillis(250))
        .until(
            () -> ProcessHandle.of(workerPid).map(ProcessHandle::isAlive).orElse(false) == false);
    Path log = jobDir.resolve("output.log");
    assertThat(Files.exists(log, LinkOption.NOFOLLOW_LINKS)).isTrue();
    assertThat(Files.isRegularFile(log, LinkOption.NOFOLLOW_LINKS)).as("a FIFO").isFalse();
    assertThat(SafeFiles.readSmall(jobDir.resolve("attempt-1.exit"), 256).map(String::trim))
        .contains("1");

    // start() waits for the health endpoint: a recovery blocked on the FIFO never gets there.
    try (GpuqProcess second = GpuqProcess.start(dataDir, TOKEN)) {
      HttpApi api = second.api(TOKEN);
      await()
          .atMost(Duration.ofSeconds(90))
          .pollInterval(Duration.ofMillis(250))
          .untilAsserted(() -> assertThat(api.state(id)).isEqualTo("FAILED"));
      JsonNode job = api.job(id);
      assertThat(job.get("exitCode").asInt()).isEqualTo(1);
      assertThat(job.get("failureReason").asString()).isEqualTo("EXIT_CODE");
      assertThat(job.get("failureMessage").asString()).contains("FIFO");

      HttpApi.Response logs = api.getBounded("/api/v1/jobs/" + id + "/logs?tail=5", 16 * 1024);
      assertThat(logs.status()).as(logs.body()).isEqualTo(409);
      assertThat(logs.contentType()).startsWith("application/problem+json");

      String after = api.submit(aJob().shell("echo after the restart").json());
      await()
          .atMost(Duration.ofSeconds(90))
          .untilAsserted(() -> assertThat(api.state(after)).isEqualTo("SUCCEEDED"));
    }
  }

  private static long workerPid(JsonNode job) {
    if (!job.get("state").asString().equals("RUNNING")) {
      return 0;
    }
    JsonNode pid = job.get("attempts").get(0).get("pid");
    return pid == null || pid.isNull() ? 0 : pid.asLong();
  }
}
