package io.gpuq.recovery;

import static io.gpuq.support.JobJson.aJob;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.gpuq.launch.LogCut;
import io.gpuq.support.GpuqProcess;
import io.gpuq.support.HttpApi;
import io.gpuq.support.IntegrationTier;
import io.gpuq.support.Tmpfs;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIf;
import tools.jackson.databind.JsonNode;

@IntegrationTier
@DisplayName(
    "On a 64 MiB data directory, `yes` cannot fill it through its log, up or down; a job that"
        + " fills it from its work directory is named, and an admin frees its files")
@EnabledIf(
    value = "io.gpuq.support.Tmpfs#canMount",
    disabledReason = "mounting a tmpfs needs root (CI runs as root)")
class LogCapOnSmallDiskTest {

  private static final String ADMIN = "log-cap-admin-0123456789";
  private static final String ALICE = "log-cap-alice-0123456789";
  private static final long DISK = 64L * 1024 * 1024;
  private static final long CAP = 4L * 1024 * 1024;
  private static final Duration LONG = Duration.ofSeconds(120);

  @Test
  void a_job_writing_without_end_keeps_its_log_under_the_cap_while_gpuq_runs_and_while_it_is_down()
      throws Exception {
    try (Tmpfs disk = Tmpfs.mount("log-cap", 64)) {
      Path dataDir = disk.root().resolve("data");
      String[] args = {
        "--gpuq.worker.max-log-size=4MiB",
        "--gpuq.storage.min-free=8MiB",
        "--gpuq.storage.check-interval=200ms",
        "--gpuq.scheduler.cpu-slots=4",
        "--gpuq.worker.allow-shared-account=true",
        "--gpuq.auth.tokens[1].name=alice",
        "--gpuq.auth.tokens[1].token=" + ALICE
      };
      String yes;
      Path log;
      try (GpuqProcess first = GpuqProcess.start(dataDir, ADMIN, args)) {
        HttpApi api = first.api(ADMIN);
        yes =
            api.submit(aJob().cpuOnly().command("yes", "a line of a job that never stops").json());
        log = dataDir.resolve("jobs").resolve(yes).resolve("output.log");
        // More than the whole disk has gone through the log.
        await().atMost(LONG).until(() -> dropped(log) > DISK);
        assertThat(api.state(yes)).isEqualTo("RUNNING");
        assertThat(Files.size(log)).isLessThanOrEqualTo(CAP);
        assertThat(first.api(null).get("/actuator/health/readiness").status()).isEqualTo(200);

        // The API's log: its beginning, the marker, its latest part, a whole line at its end.
        String whole = api.get("/api/v1/jobs/" + yes + "/logs").body();
        assertThat(whole).startsWith("a line of a job that never stops\n");
        assertThat(whole).containsPattern("\n=== gpuq: \\d+ bytes of this log dropped here");
        assertThat(whole.length()).isLessThanOrEqualTo((int) CAP);
        // Its last lines (the very last may be written only in part).
        assertThat(api.get("/api/v1/jobs/" + yes + "/logs?tail=2").body().lines())
            .hasSizeBetween(1, 2)
            .allMatch("a line of a job that never stops"::startsWith);

        first.crash();
      }

      // gpuq is down; the job writes on, and its log stays under the cap.
      long whenDown = dropped(log);
      await().atMost(LONG).until(() -> dropped(log) > whenDown + DISK);
      assertThat(Files.size(log)).isLessThanOrEqualTo(CAP);

      try (GpuqProcess second = GpuqProcess.start(dataDir, ADMIN, args)) {
        HttpApi api = second.api(ADMIN);
        HttpApi alice = second.api(ALICE);
        HttpApi anonymous = second.api(null);
        await().atMost(LONG).ignoreExceptions().until(() -> api.state(yes).equals("RUNNING"));
        assertThat(api.delete("/api/v1/jobs/" + yes + "/files").status())
            .as("a running job's files stay")
            .isEqualTo(409);
        api.post("/api/v1/jobs/" + yes + "/cancel");
        await().atMost(LONG).ignoreExceptions().until(() -> api.state(yes).equals("CANCELLED"));

        // A job fills the disk from its work directory, and ends.
        String filler =
            api.submit(
                aJob().cpuOnly().shell("head -c 56M /dev/zero > fill 2>/dev/null; exit 0").json());
        await()
            .atMost(LONG)
            .until(() -> anonymous.get("/actuator/health/readiness").status() == 503);
        await().atMost(LONG).ignoreExceptions().until(() -> api.state(filler).equals("SUCCEEDED"));
        // Its end was written while the disk was full, which closes H2's database: a request
        // that took a connection of the closed database answered 500 (issue 34).
        assertUnknownJobsFilesAreNotFound(api);

        // gpuq names it: in its health, to an admin, and in the 507 a submitter gets.
        JsonNode storage =
            await()
                .atMost(LONG)
                .until(
                    () -> api.get("/actuator/health").json().get("components").get("storage"),
                    node -> node.get("details").has("largest"));
        assertThat(storage.get("status").asString()).isEqualTo("DOWN");
        JsonNode largest = storage.get("details").get("largest").get(0);
        assertThat(largest.get("job").asString()).isEqualTo(filler);
        assertThat(largest.get("bytes").asLong()).isGreaterThan(40L * 1024 * 1024);
        HttpApi.Response refused = alice.post("/api/v1/jobs", aJob().cpuOnly().json());
        assertThat(refused.status()).isEqualTo(507);
        assertThat(refused.json().get("detail").asString()).contains("job " + filler);

        // Only an admin may delete a job's files; an unknown job is a 404, the disk still full.
        assertUnknownJobsFilesAreNotFound(api);
        HttpApi.Response forbidden = alice.delete("/api/v1/jobs/" + filler + "/files");
        assertThat(forbidden.status()).isEqualTo(403);
        assertThat(forbidden.contentType()).startsWith("application/problem+json");

        // While the disk is full every write gpuq makes closes H2's database again, and the pool
        // opens it anew: a request that took a connection at that moment may still fail (issue
        // 34's note), though the delete now tries its read again. The delete succeeds, an admin
        // trying again at worst, and nothing but a server's error comes before. Not a 409 either:
        // H2 shows a commit it then fails to write, so the job that read SUCCEEDED may read
        // RUNNING again until its end, tried again, is stored; its work directory goes all the
        // same, as its worker is known to have ended here (seen once in a clean run of CI's
        // script).
        List<HttpApi.Response> answers = new ArrayList<>();
        await()
            .atMost(LONG)
            .until(
                () -> {
                  answers.add(api.delete("/api/v1/jobs/" + filler + "/files"));
                  return answers.get(answers.size() - 1).status() == 204;
                });
        assertThat(answers.subList(0, answers.size() - 1))
            .allMatch(answer -> answer.status() >= 500, "server errors only");
        assertThat(dataDir.resolve("work").resolve(filler)).doesNotExist();
        await()
            .atMost(LONG)
            .until(() -> anonymous.get("/actuator/health/readiness").status() == 200);
        await().atMost(LONG).ignoreExceptions().until(() -> api.state(filler).equals("SUCCEEDED"));
        assertUnknownJobsFilesAreNotFound(api);
        String after = alice.submit(aJob().cpuOnly().command("true").json());
        await().atMost(LONG).ignoreExceptions().until(() -> alice.state(after).equals("SUCCEEDED"));
      }
    }
  }

  private static void assertUnknownJobsFilesAreNotFound(HttpApi admin) {
    HttpApi.Response unknown = admin.delete("/api/v1/jobs/01J00000000000000000000000/files");
    assertThat(unknown.status()).as(unknown.body()).isEqualTo(404);
  }

  private static long dropped(Path log) {
    return LogCut.of(LogCut.stateFileOf(log)).dropped();
  }
}
