package io.gpuq.warm;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.gpuq.support.GpuqProcess;
import io.gpuq.support.HttpApi;
import io.gpuq.support.IntegrationTier;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

/**
 * Four warm trials, two CPU slots: two trials run, forked from their zygote, and two wait when gpuq
 * is killed with SIGKILL. The running ones wait for a gate the test opens while gpuq is down, and
 * end before it comes back: the zygote, which outlives gpuq, tells their clients how they ended,
 * and the wrappers record it. After the restart every trial ends exactly once.
 */
@IntegrationTier
@DisplayName("A gpuq killed with SIGKILL mid warm sweep ends every trial exactly once (issue 36)")
class WarmSweepCrashRecoveryTest {

  private static final String TOKEN = "warm-crash-token-0123456789";

  private static final String COUNTED_MODULE =
      "import os\n"
          + "with open(os.path.join(os.path.dirname(os.path.abspath(__file__)),"
          + " 'imports.count'), 'a') as f:\n"
          + "    f.write('%d\\n' % os.getpid())\n";

  /** Says it started, waits for the gate, says it ran: argv[1] the gate, argv[2] the dir. */
  private static final String TRIAL =
      "import os, sys, time, countme\n"
          + "job = os.environ['GPUQ_JOB_ID']\n"
          + "with open(os.path.join(sys.argv[2], 'started.txt'), 'a') as f:\n"
          + "    f.write(job + '\\n')\n"
          + "print('PPID', os.getppid(), flush=True)\n"
          + "while not os.path.exists(sys.argv[1]):\n"
          + "    time.sleep(0.05)\n"
          + "with open(os.path.join(sys.argv[2], 'ran.txt'), 'a') as f:\n"
          + "    f.write(job + '\\n')\n";

  @Test
  void every_warm_trial_ends_once_across_a_crash() throws Exception {
    Path dataDir =
        Files.createTempDirectory(
            Files.createDirectories(Path.of("target/test-data")).toAbsolutePath(), "warm-crash-");
    Path work = Files.createDirectory(dataDir.resolve("scripts"));
    Files.setPosixFilePermissions(work, PosixFilePermissions.fromString("rwxrwxrwx"));
    Files.setPosixFilePermissions(dataDir, PosixFilePermissions.fromString("rwxr-xr-x"));
    Files.writeString(work.resolve("countme.py"), COUNTED_MODULE);
    Files.writeString(work.resolve("trial.py"), TRIAL);
    Path gate = work.resolve("gate");
    Path ran = work.resolve("ran.txt");
    Path started = work.resolve("started.txt");
    Map<String, Object> body = new LinkedHashMap<>();
    body.put("name", "warm-crash");
    body.put("command", List.of("python3", "trial.py", gate.toString(), work.toString(), "{x}"));
    body.put("workingDir", work.toString());
    body.put("resources", Map.of("gpus", 0));
    body.put("preload", List.of("countme"));
    body.put("method", "grid");
    body.put("parameters", Map.of("x", Map.of("values", List.of(1, 2, 3, 4))));
    // The zygote must wait, idle, for the second gpuq: its start took 26 s on a loaded machine.
    String[] args = {"--gpuq.scheduler.cpu-slots=2", "--gpuq.warm.idle-exit=120s"};
    String id;
    List<String> endedWhileDown;
    try {
      try (GpuqProcess first = GpuqProcess.start(dataDir, TOKEN, args)) {
        HttpApi api = first.api(TOKEN);
        HttpApi.Response created =
            api.post("/api/v1/sweeps", HttpApi.JSON.writeValueAsString(body));
        assertThat(created.status()).as(created.body()).isEqualTo(201);
        id = created.json().get("id").asString();
        await()
            .atMost(Duration.ofSeconds(60))
            .pollInterval(Duration.ofMillis(100))
            .until(() -> lines(started).size() == 2);
        endedWhileDown = lines(started);

        first.crash();

        Files.createFile(gate);
        await().atMost(Duration.ofSeconds(30)).until(() -> lines(ran).size() == 2);
        assertThat(lines(ran)).containsExactlyInAnyOrderElementsOf(endedWhileDown);
      }

      try (GpuqProcess second = GpuqProcess.start(dataDir, TOKEN, args)) {
        HttpApi api = second.api(TOKEN);
        await()
            .atMost(Duration.ofSeconds(60))
            .pollInterval(Duration.ofMillis(250))
            .until(
                () -> api.get("/api/v1/sweeps/" + id).json().get("state").asString(),
                "DONE"::equals);
        JsonNode trials = api.get("/api/v1/sweeps/" + id + "/trials").json().get("items");
        List<String> jobs = new ArrayList<>();
        for (JsonNode trial : trials) {
          String jobId = trial.get("jobId").asString();
          jobs.add(jobId);
          JsonNode job = api.job(jobId);
          String log = api.get("/api/v1/jobs/" + jobId + "/logs").body();
          assertThat(job.get("state").asString()).as(jobId + ": " + log).isEqualTo("SUCCEEDED");
          assertThat(job.get("attempts")).as("attempts of %s", jobId).hasSize(1);
          assertThat(log).doesNotContain("warm start unavailable");
        }
        assertThat(jobs).hasSize(4);
        Map<String, Long> runs =
            lines(ran).stream()
                .collect(Collectors.groupingBy(Function.identity(), Collectors.counting()));
        assertThat(runs.keySet()).containsExactlyInAnyOrderElementsOf(jobs);
        assertThat(runs.values()).as("runs per trial").allMatch(count -> count == 1);
        assertThat(lines(work.resolve("imports.count")))
            .as("the zygote outlived the crash and served the second gpuq's trials too")
            .hasSize(1);
      }
    } finally {
      stopZygotes(dataDir);
    }
  }

  private static List<String> lines(Path file) throws IOException {
    return Files.exists(file) ? Files.readAllLines(file) : List.of();
  }

  /** The first gpuq's zygote is no child of the second: stopped here, not after its idle time. */
  private static void stopZygotes(Path dataDir) throws IOException {
    Path count = dataDir.resolve("scripts").resolve("imports.count");
    for (String pid : lines(count)) {
      ProcessHandle.of(Long.parseLong(pid.trim()))
          .filter(h -> h.info().commandLine().orElse("").contains(WarmStarts.ZYGOTE))
          .ifPresent(ProcessHandle::destroy);
    }
  }
}
