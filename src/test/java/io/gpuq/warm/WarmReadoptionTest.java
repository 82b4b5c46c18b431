package io.gpuq.warm;

import static org.assertj.core.api.Assertions.assertThat;

import io.gpuq.job.ClaimedJob;
import io.gpuq.job.Framework;
import io.gpuq.job.HostResources;
import io.gpuq.job.JobPlacement;
import io.gpuq.launch.AdoptRequest;
import io.gpuq.launch.JobFiles;
import io.gpuq.launch.LaunchRequest;
import io.gpuq.launch.RunningWorker;
import io.gpuq.launch.WorkerLauncher;
import io.gpuq.proc.ProcFs;
import io.gpuq.proc.ProcStat;
import io.gpuq.support.IntegrationTier;
import io.gpuq.support.TestDataDirs;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * A warm trial's worker survives its gpuq as a cold one does: a second launcher (a restarted gpuq)
 * adopts its wrapper by pid and reads the fork's exit code from the exit file.
 */
@IntegrationTier
@DisplayName("A warm trial across a gpuq restart (issue 36)")
class WarmReadoptionTest {

  private final Path root = TestDataDirs.fresh("warm-readopt-");
  private WarmStarts warm;

  @AfterEach
  void retire() {
    if (warm != null) {
      warm.close();
    }
  }

  @Test
  @DisplayName("a second launcher adopts the worker and reads the fork's exit code")
  void adopted_by_a_second_launcher() throws Exception {
    JobFiles files = new JobFiles(root);
    WorkerLauncher first = new WorkerLauncher(files, Clock.systemUTC());
    warm =
        new WarmStarts(
            root.resolve("warm"),
            Duration.ofMinutes(1),
            100,
            Duration.ofSeconds(30),
            Clock.systemUTC());
    Path dir = Files.createDirectories(root.resolve("scripts"));
    Path release = dir.resolve("release");
    Files.writeString(
        dir.resolve("trial.py"),
        "import os, sys, time\n"
            + "print('forked from', os.getppid(), flush=True)\n"
            + "while not os.path.exists(sys.argv[1]):\n"
            + "    time.sleep(0.05)\n"
            + "sys.exit(7)\n");
    List<String> command = List.of("python3", "trial.py", release.toString());
    ClaimedJob job =
        new ClaimedJob(
            "warm-job",
            "alice",
            1,
            command,
            dir.toString(),
            Map.of(),
            Framework.GENERIC,
            null,
            Instant.now(),
            Instant.now(),
            null,
            HostResources.ONE_CORE,
            List.of("json"),
            null);
    Map<String, String> env = new HashMap<>();
    env.put("PATH", System.getenv("PATH"));
    LaunchRequest request =
        warm.prepare(
            job, LaunchRequest.of(job, JobPlacement.cpuOnly("node-1"), null, env, List.of()));
    assertThat(request.warmStart()).isTrue();
    RunningWorker worker = first.launch(request);
    Path log = files.log(job.id());
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (!Files.readString(log).contains("forked from") && System.nanoTime() < deadline) {
      TimeUnit.MILLISECONDS.sleep(20);
    }
    assertThat(Files.readString(log)).contains("forked from").doesNotContain("warm start");

    // A restarted gpuq: a new launcher, which knows the worker by its pid and start time only.
    WorkerLauncher second = new WorkerLauncher(files, Clock.systemUTC());
    ProcFs procFs = ProcFs.system();
    long ticks = procFs.stat(worker.pid()).map(ProcStat::startTimeTicks).orElseThrow();
    Optional<RunningWorker> adopted =
        second.adopt(
            new AdoptRequest(
                job.id(),
                1,
                worker.pid(),
                ticks,
                Instant.now(),
                null,
                JobPlacement.cpuOnly("node-1"),
                HostResources.ONE_CORE),
            procFs);
    assertThat(adopted).isPresent();
    Files.createFile(release);

    Integer code = adopted.get().exitCode().get(30, TimeUnit.SECONDS);
    assertThat(code).isEqualTo(7);
    assertThat(second.recordedExitCode(job.id(), 1)).contains(7);
  }
}
