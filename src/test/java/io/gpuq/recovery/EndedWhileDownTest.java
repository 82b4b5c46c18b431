package io.gpuq.recovery;

import static io.gpuq.support.JobJson.aJob;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;
import static org.awaitility.Awaitility.await;

import io.gpuq.support.Gate;
import io.gpuq.support.GpuqProcess;
import io.gpuq.support.HttpApi;
import io.gpuq.support.IntegrationTier;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

@IntegrationTier
@DisplayName("A job whose worker ended while gpuq was down ended when its worker did")
class EndedWhileDownTest {

  private static final String TOKEN = "ended-while-down-token-0123";

  @Test
  void its_finishedAt_is_when_its_exit_file_was_written_not_when_gpuq_came_back() throws Exception {
    Path dataDir =
        Files.createTempDirectory(
            Files.createDirectories(Path.of("target/test-data")).toAbsolutePath(), "ended-");
    Gate release = Gate.in(dataDir, "release");
    String waitThenExit = release.shellWait() + "; exit ";
    Map<String, Integer> codes = new HashMap<>();

    try (GpuqProcess first = GpuqProcess.start(dataDir, TOKEN)) {
      HttpApi api = first.api(TOKEN);
      // One ends as a success (recorded in one statement), one as a failure (through the job).
      for (int code : List.of(0, 3)) {
        codes.put(api.submit(aJob().shell(waitThenExit + code).json()), code);
      }
      // Crashed only once each worker's pid is stored: its wrapper is then on its own and writes
      // the exit file; a crash between the claim and the spawn would leave no worker at all.
      await()
          .atMost(Duration.ofMinutes(2))
          .until(() -> codes.keySet().stream().allMatch(id -> hasWorker(api.job(id))));
      first.crash();
    }

    release.open();
    Map<String, Instant> written = new HashMap<>();
    for (String id : codes.keySet()) {
      Path exitFile = dataDir.resolve("jobs").resolve(id).resolve("attempt-1.exit");
      // Its code, not only something: gpuq writes blank lines there before the launch, which the
      // wrapper overwrites with the code as the job ends (on a busy machine, seconds later).
      await()
          .atMost(Duration.ofMinutes(2))
          .until(
              () ->
                  Files.isRegularFile(exitFile, LinkOption.NOFOLLOW_LINKS)
                      && Files.readString(exitFile).trim().matches("\\d+"));
      written.put(id, Files.getLastModifiedTime(exitFile, LinkOption.NOFOLLOW_LINKS).toInstant());
    }
    // However fast this machine is, gpuq comes back clearly after the workers ended.
    Instant lastWritten = written.values().stream().max(Instant::compareTo).orElseThrow();
    await()
        .atMost(Duration.ofMinutes(1))
        .until(() -> Instant.now().isAfter(lastWritten.plusSeconds(3)));
    Instant restarted = Instant.now();

    try (GpuqProcess second = GpuqProcess.start(dataDir, TOKEN)) {
      HttpApi api = second.api(TOKEN);
      await()
          .atMost(Duration.ofMinutes(2))
          .pollInterval(Duration.ofMillis(500))
          .until(
              () ->
                  codes.keySet().stream()
                      .allMatch(id -> List.of("SUCCEEDED", "FAILED").contains(api.state(id))));

      for (String id : codes.keySet()) {
        JsonNode job = api.job(id);
        assertThat(job.get("exitCode").asInt()).as(id).isEqualTo(codes.get(id));
        Instant finishedAt = Instant.parse(job.get("finishedAt").asString());
        assertThat(finishedAt)
            .as("%s: its exit file was written at %s", id, written.get(id))
            .isCloseTo(written.get(id), within(1, ChronoUnit.SECONDS))
            .isBefore(restarted);
        assertThat(Instant.parse(job.get("attempts").get(0).get("finishedAt").asString()))
            .as(id)
            .isEqualTo(finishedAt);
      }
    }
  }

  private static boolean hasWorker(JsonNode job) {
    if (!job.get("state").asString().equals("RUNNING")) {
      return false;
    }
    JsonNode pid = job.get("attempts").get(0).get("pid");
    return pid != null && !pid.isNull() && pid.asLong() > 0;
  }
}
