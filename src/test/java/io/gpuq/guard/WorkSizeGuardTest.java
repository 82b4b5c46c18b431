package io.gpuq.guard;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.gpuq.job.AttemptOutcome;
import io.gpuq.job.FailureReason;
import io.gpuq.launch.JobFiles;
import io.gpuq.launch.StopReason;
import io.gpuq.launch.WorkerExit;
import io.gpuq.schedule.LocalWorkers;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

@DisplayName("The work-size guard (gpuq.worker.max-work-size)")
class WorkSizeGuardTest {

  private static final long MIB = 1024 * 1024;

  @TempDir Path dataDir;
  private LocalWorkers local;
  private WorkSizeGuard guard;

  @BeforeEach
  void startWorkers() {
    local = new LocalWorkers(dataDir, Clock.systemUTC());
    guard =
        new WorkSizeGuard(local.workers(), new JobFiles(dataDir), 2 * MIB, Duration.ofSeconds(2));
  }

  @AfterEach
  void killWhatIsLeft() {
    local.close();
  }

  @Test
  void stops_a_job_that_wrote_past_the_cap_into_its_work_directory_and_says_why() throws Exception {
    local.launch("big", "sh", "-c", "dd if=/dev/zero of=out bs=1M count=3 2>/dev/null; sleep 60");

    await()
        .atMost(Duration.ofSeconds(60))
        .until(
            () -> {
              guard.runOnce();
              return local.exitOf("big").isDone();
            });

    WorkerExit exit = local.exitOf("big").get(30, TimeUnit.SECONDS);
    assertThat(exit.stopReason()).isEqualTo(StopReason.OVER_WORK_SIZE);
    AttemptOutcome outcome = new ExitClassifier(new OomRecognizer()).classify(exit, "");
    assertThat(outcome.failureReason()).isEqualTo(FailureReason.OVER_WORK_SIZE);
    assertThat(outcome.message())
        .startsWith(
            "stopped: it wrote more than max-work-size (2MiB) into its work directory (3MiB")
        .contains("workingDir");
  }

  @Test
  void leaves_a_job_under_the_cap_alone() {
    local.launch("small", "sh", "-c", "dd if=/dev/zero of=out bs=1M count=1 2>/dev/null; sleep 60");
    Path out = new JobFiles(dataDir).workDir("small").resolve("out");
    await().atMost(Duration.ofSeconds(60)).until(() -> sizeOf(out) == MIB);

    guard.runOnce();

    assertThat(local.workers().live())
        .singleElement()
        .satisfies(worker -> assertThat(worker.stopReason()).isNull());
  }

  private static long sizeOf(Path file) {
    try {
      return Files.size(file);
    } catch (java.io.IOException e) {
      return -1;
    }
  }
}
