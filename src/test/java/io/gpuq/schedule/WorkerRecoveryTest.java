package io.gpuq.schedule;

import static io.gpuq.job.JobBuilder.aRunningJob;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.gpuq.job.AttemptEnd;
import io.gpuq.job.AttemptOutcome;
import io.gpuq.job.InMemoryJobStore;
import io.gpuq.job.Job;
import io.gpuq.job.JobService;
import io.gpuq.job.JobState;
import io.gpuq.job.WorkerProcess;
import io.gpuq.launch.JobFiles;
import io.gpuq.launch.RunningWorker;
import io.gpuq.placement.Headroom;
import io.gpuq.placement.PlacementPolicy;
import io.gpuq.placement.Placer;
import io.gpuq.proc.ProcFs;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Recovery at start-up of the workers an earlier gpuq on this node left behind whose attempts the
 * store ended meanwhile: over the in-memory store, with real worker processes that the "earlier
 * gpuq" (its own {@link LocalWorkers}) launched and wrote process files for.
 */
@DisplayName("At start-up, the workers of jobs cancelled or pruned while gpuq was down are stopped")
class WorkerRecoveryTest {

  private final InMemoryJobStore store = new InMemoryJobStore();
  private final Clock clock = Clock.systemUTC();
  private final JobService jobs = new JobService(store, clock, List.of());
  private final ProcFs procFs = new ProcFs(Path.of("/proc"));
  @TempDir Path dataDir;
  private LocalWorkers earlier;
  private LocalWorkers restarted;
  private Scheduler scheduler;

  @BeforeEach
  void anEarlierGpuqAndTheOneThatReplacesIt() {
    earlier = new LocalWorkers(dataDir, clock);
    restarted = new LocalWorkers(dataDir, clock);
    scheduler =
        new SchedulerBuilder(
                jobs,
                restarted.workers(),
                new JobFiles(dataDir),
                new Placer(new PlacementPolicy(Headroom.NONE, Duration.ZERO, Duration.ZERO, 8)),
                clock,
                "node-1")
            .cpuSlots(2)
            .safetyNet(Duration.ofMinutes(10))
            .build();
  }

  @AfterEach
  void killWhatIsLeft() {
    scheduler.loop().stop();
    restarted.close();
    earlier.close();
  }

  @Test
  void a_worker_whose_job_was_cancelled_while_gpuq_was_down_is_stopped_with_its_whole_tree()
      throws Exception {
    Job job = aRunningJob().on("node-1").at(clock.instant()).in(store);
    // A shell with a child of its own: the whole tree must go, not only its root.
    RunningWorker worker = leftRunning(job, "sleep 300 & sleep 300; wait");
    List<ProcessHandle> tree = treeOf(worker);
    store.cancel(job.id(), clock.instant());

    scheduler.recovery().start();

    await()
        .atMost(Duration.ofSeconds(30))
        .until(() -> tree.stream().noneMatch(ProcessHandle::isAlive));
    await()
        .atMost(Duration.ofSeconds(30))
        .until(() -> logOf(job).endsWith("=== gpuq: stopped: cancelled by the user ===\n"));
    Job after = store.find(job.id()).orElseThrow();
    assertThat(after.state()).isEqualTo(JobState.CANCELLED);
    assertThat(after.attempts())
        .singleElement()
        .satisfies(
            a -> {
              assertThat(a.outcome()).isEqualTo(JobState.CANCELLED);
              assertThat(a.failureReason()).isNull();
            });
    assertThat(scheduler.recovery().isRunning()).isTrue();
  }

  @Test
  void a_worker_whose_trial_was_pruned_just_before_gpuq_died_is_stopped_as_pruned() {
    Job trial = aRunningJob().on("node-1").at(clock.instant()).in(store);
    RunningWorker worker = leftRunning(trial, "sleep 300");
    store.prune(
        trial.id(),
        "stopped by the sweep's early-stopping rule (median) at step 40",
        clock.instant());

    scheduler.recovery().start();

    await()
        .atMost(Duration.ofSeconds(30))
        .until(() -> !ProcessHandle.of(worker.pid()).map(ProcessHandle::isAlive).orElse(false));
    await()
        .atMost(Duration.ofSeconds(30))
        .until(
            () ->
                logOf(trial)
                    .endsWith(
                        "=== gpuq: stopped: pruned by the sweep's early-stopping rule ===\n"));
    assertThat(store.find(trial.id()).orElseThrow().state()).isEqualTo(JobState.PRUNED);
  }

  @Test
  void a_process_whose_start_time_is_not_the_recorded_one_is_not_the_worker_and_is_left_alone() {
    Job job = aRunningJob().on("node-1").at(clock.instant()).in(store);
    RunningWorker other = earlier.launch(job.id(), "sleep", "300");
    long otherStart = procFs.stat(other.pid()).orElseThrow().startTimeTicks();
    // The recorded worker is gone and its PID was given to a newer process.
    recordProcessFile(new WorkerProcess(job.id(), 1, other.pid(), otherStart - 1));
    store.cancel(job.id(), clock.instant());

    scheduler.recovery().start();

    assertThat(restarted.workers().live()).isEmpty();
    assertThat(ProcessHandle.of(other.pid()).map(ProcessHandle::isAlive)).contains(true);
    assertThat(earlier.exitOf(job.id())).isNotDone();
  }

  @Test
  void a_worker_of_a_job_finished_longer_ago_than_recovery_looks_back_is_not_looked_for() {
    Job job =
        aRunningJob()
            .on("node-1")
            .at(clock.instant().minus(WorkerRecovery.LEFT_BEHIND_WITHIN).minusSeconds(60))
            .in(store);
    RunningWorker worker = leftRunning(job, "sleep 300");
    Instant longAgo = clock.instant().minus(WorkerRecovery.LEFT_BEHIND_WITHIN).minusSeconds(1);
    store.cancel(job.id(), longAgo);
    // Finished then, its exit code unknown.
    store
        .endAttempt(new AttemptEnd(job.id(), 1, new AttemptOutcome(null, "gone", null), 0, longAgo))
        .join();

    scheduler.recovery().start();

    assertThat(restarted.workers().live()).isEmpty();
    assertThat(ProcessHandle.of(worker.pid()).map(ProcessHandle::isAlive)).contains(true);
  }

  @Test
  void a_job_cancelled_while_gpuq_was_down_whose_worker_ended_meanwhile_finishes_at_its_exit()
      throws Exception {
    Job job = aRunningJob().on("node-1").at(clock.instant()).in(store);
    leftRunning(job, "exit 3");
    earlier.exitOf(job.id()).get(30, java.util.concurrent.TimeUnit.SECONDS);
    store.cancel(job.id(), clock.instant());
    assertThat(store.find(job.id()).orElseThrow().finishedAt()).isNull();

    scheduler.recovery().start();

    // Issue 34: a cancelled job finishes when its worker is gone; here, when its exit was written.
    await()
        .atMost(Duration.ofSeconds(30))
        .until(() -> store.find(job.id()).orElseThrow().finishedAt() != null);
    Job after = store.find(job.id()).orElseThrow();
    assertThat(after.state()).isEqualTo(JobState.CANCELLED);
    assertThat(after.exitCode()).isEqualTo(3);
    assertThat(after.finishedAt()).isBeforeOrEqualTo(clock.instant());
    assertThat(after.attempts().get(0).finishedAt()).isEqualTo(after.finishedAt());
  }

  /** Launched by the earlier gpuq, which wrote its process file as it does, then died. */
  private RunningWorker leftRunning(Job job, String shell) {
    RunningWorker worker = earlier.launch(job.id(), "sh", "-c", shell);
    long startTicks = procFs.stat(worker.pid()).orElseThrow().startTimeTicks();
    recordProcessFile(new WorkerProcess(job.id(), 1, worker.pid(), startTicks));
    return worker;
  }

  private void recordProcessFile(WorkerProcess process) {
    try {
      earlier.workers().recordProcess(process);
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  private static List<ProcessHandle> treeOf(RunningWorker worker) {
    ProcessHandle root = ProcessHandle.of(worker.pid()).orElseThrow();
    await().atMost(Duration.ofSeconds(30)).until(() -> root.descendants().count() >= 2);
    return java.util.stream.Stream.concat(java.util.stream.Stream.of(root), root.descendants())
        .toList();
  }

  private String logOf(Job job) throws java.io.IOException {
    Path log = new JobFiles(dataDir).log(job.id());
    return Files.exists(log) ? Files.readString(log) : "";
  }
}
