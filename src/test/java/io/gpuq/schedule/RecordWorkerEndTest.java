package io.gpuq.schedule;

import static io.gpuq.job.JobBuilder.aRunningJob;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.gpuq.gpu.GpuInventory;
import io.gpuq.gpu.GpuUsage;
import io.gpuq.gpu.emulated.EmulatedGpuBackend;
import io.gpuq.job.FailureReason;
import io.gpuq.job.InMemoryJobStore;
import io.gpuq.job.Job;
import io.gpuq.job.JobBuilder;
import io.gpuq.job.JobPlacement;
import io.gpuq.job.JobService;
import io.gpuq.job.JobState;
import io.gpuq.launch.JobFiles;
import io.gpuq.launch.StopReason;
import io.gpuq.launch.WorkerExit;
import io.gpuq.launch.WorkerGroupEnd;
import io.gpuq.proc.ProcFs;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * How a worker's end is recorded, over the in-memory store, with real worker processes on a
 * CPU-only node-1: each exit handed in as {@link JobExecution} hands it in, what the scheduler is
 * told heard in order (with the job's stored state when it hears it).
 */
@DisplayName("A worker's exit becomes its attempt's stored end")
class RecordWorkerEndTest {

  private static final JobPlacement PLACEMENT = JobPlacement.cpuOnly("node-1");

  private final InMemoryJobStore store = new InMemoryJobStore();
  private final Clock clock = Clock.systemUTC();
  private final JobService jobs = new JobService(store, clock, List.of());
  private final List<String> heard = new CopyOnWriteArrayList<>();
  @TempDir Path dataDir;
  private LocalWorkers local;
  private RecordWorkerEnd recordEnd;
  private final List<JobPlacement> placementsHeard = new CopyOnWriteArrayList<>();
  private Job current;

  @BeforeEach
  void workersOnNode1() {
    local = new LocalWorkers(dataDir, clock);
    recordEnd = aRecorderOver(jobs);
  }

  /**
   * Each callback notes what it heard, with the job's stored state then; before the end is
   * recorded, also {@code beforeEnd} is told.
   */
  private RecordWorkerEnd aRecorderOver(JobService jobs, Consumer<String> beforeEnd) {
    return aRecorderOver(jobs, beforeEnd, Duration.ofMillis(100));
  }

  /** As above, an end the database could not write tried again after {@code firstRetry}. */
  private RecordWorkerEnd aRecorderOver(
      JobService jobs, Consumer<String> beforeEnd, Duration firstRetry) {
    return new RecordWorkerEnd(
        jobs,
        local.exitJudging(),
        new NodeGpus(
            new EmulatedGpuBackend(List.of(), new ProcFs(Path.of("/proc")), clock),
            new GpuInventory("emulated", List.of(), Optional.empty()),
            () -> GpuUsage.none(clock.instant())),
        new WorkerEndListener() {
          @Override
          public void capacityFreed(JobPlacement placement) {
            heard.add("capacity freed (" + stateAt(placement) + ")");
          }

          @Override
          public void endStored(JobPlacement placement) {
            heard.add("end stored (" + stateAt(placement) + ")");
          }

          @Override
          public void beforeEndRecorded(String jobId) {
            heard.add("before the end is recorded (" + stored(current).state() + ")");
            beforeEnd.accept(jobId);
          }
        },
        firstRetry);
  }

  private RecordWorkerEnd aRecorderOver(JobService jobs) {
    return aRecorderOver(jobs, jobId -> {});
  }

  @AfterEach
  void killWhatIsLeft() {
    local.close();
  }

  /** The one job a test runs, attempt 1 on node-1. */
  private Job running(JobBuilder builder) {
    current = builder.in(store);
    return current;
  }

  private JobState stateAt(JobPlacement placement) {
    placementsHeard.add(placement);
    return stored(current).state();
  }

  private Job stored(Job job) {
    return store.find(job.id()).orElseThrow();
  }

  /** Runs the job's worker to its end, as node-1 runs its attempt 1. */
  private WorkerExit exitOf(Job job, String... command) throws Exception {
    local.launch(job.id(), command);
    return local.exitOf(job.id()).get(30, TimeUnit.SECONDS);
  }

  @Test
  void a_worker_that_exits_0_succeeds_its_place_freed_first_its_end_heard_once_stored()
      throws Exception {
    Job job = running(aRunningJob().on("node-1"));

    recordEnd.ended(exitOf(job, "/bin/true"), PLACEMENT);

    await().atMost(Duration.ofSeconds(30)).until(() -> heard.size() == 3);
    assertThat(stored(job).state()).isEqualTo(JobState.SUCCEEDED);
    assertThat(stored(job).exitCode()).isZero();
    assertThat(heard)
        .containsExactly(
            "capacity freed (RUNNING)",
            "before the end is recorded (RUNNING)",
            "end stored (SUCCEEDED)");
    assertThat(placementsHeard).containsOnly(PLACEMENT);
  }

  @Test
  void a_worker_that_exits_with_a_code_fails_its_job_with_that_code() throws Exception {
    Job job = running(aRunningJob().on("node-1"));

    recordEnd.ended(exitOf(job, "/bin/sh", "-c", "exit 3"), PLACEMENT);

    await().atMost(Duration.ofSeconds(30)).until(() -> stored(job).state().isTerminal());
    Job failed = stored(job);
    assertThat(failed.state()).isEqualTo(JobState.FAILED);
    assertThat(failed.failureReason()).isEqualTo(FailureReason.EXIT_CODE);
    assertThat(failed.failureMessage()).isEqualTo("exited with code 3");
    assertThat(failed.exitCode()).isEqualTo(3);
  }

  @Test
  void a_failed_attempt_with_attempts_left_requeues_its_job_and_frees_its_place_a_second_time()
      throws Exception {
    Job job = running(aRunningJob().spec(s -> s.attempts(2)).on("node-1"));

    recordEnd.ended(exitOf(job, "/bin/sh", "-c", "exit 3"), PLACEMENT);

    await().atMost(Duration.ofSeconds(30)).until(() -> heard.size() == 3);
    assertThat(stored(job).state()).isEqualTo(JobState.QUEUED);
    // The second wake-up lets a pass start the retry; a requeued job's end is no finished one.
    assertThat(heard)
        .containsExactly(
            "capacity freed (RUNNING)",
            "before the end is recorded (RUNNING)",
            "capacity freed (QUEUED)");
  }

  @Test
  void a_worker_its_cgroup_counted_an_oom_kill_for_is_HOST_OUT_OF_MEMORY_whatever_its_code()
      throws Exception {
    Job job = running(aRunningJob().on("node-1"));
    WorkerExit exit =
        new WorkerExit(
            job.id(), 1, 42, 1, null, null, null, new WorkerGroupEnd(1, 256L << 20, false));

    recordEnd.ended(exit, PLACEMENT);

    await().atMost(Duration.ofSeconds(30)).until(() -> stored(job).state().isTerminal());
    Job failed = stored(job);
    assertThat(failed.failureReason()).isEqualTo(FailureReason.HOST_OUT_OF_MEMORY);
    assertThat(failed.failureMessage()).contains("256MiB");
    assertThat(failed.exitCode()).isEqualTo(1);
  }

  /**
   * Without a cap of its own, the kernel killed it for want of the memory all jobs share (their
   * parent group's cap) or the host's, and picked it before gpuq for its high oom_score_adj.
   */
  @Test
  void an_oom_kill_in_a_group_without_a_cap_is_HOST_OUT_OF_MEMORY_for_want_of_shared_memory()
      throws Exception {
    Job job = running(aRunningJob().on("node-1"));
    WorkerExit exit =
        new WorkerExit(job.id(), 1, 42, 137, null, null, null, new WorkerGroupEnd(1, null, false));

    recordEnd.ended(exit, PLACEMENT);

    await().atMost(Duration.ofSeconds(30)).until(() -> stored(job).state().isTerminal());
    Job failed = stored(job);
    assertThat(failed.failureReason()).isEqualTo(FailureReason.HOST_OUT_OF_MEMORY);
    assertThat(failed.failureMessage())
        .startsWith("killed by the kernel for want of host memory (1 process(es) killed)")
        .contains("set no resources.memory");
  }

  @Test
  void a_failed_job_that_met_its_process_limit_says_so_after_its_failure() throws Exception {
    Job job = running(aRunningJob().on("node-1"));
    WorkerExit exit =
        new WorkerExit(
            job.id(), 1, 42, 2, null, null, null, new WorkerGroupEnd(0, null, false, 71, 50L));

    recordEnd.ended(exit, PLACEMENT);

    await().atMost(Duration.ofSeconds(30)).until(() -> stored(job).state().isTerminal());
    Job failed = stored(job);
    assertThat(failed.failureReason()).isEqualTo(FailureReason.EXIT_CODE);
    assertThat(failed.failureMessage())
        .endsWith(
            "; it reached its limit of 50 processes and threads (gpuq.worker.max-processes): the"
                + " kernel refused it 71 forks");
  }

  @Test
  void a_job_that_met_its_process_limit_and_succeeded_succeeds() throws Exception {
    Job job = running(aRunningJob().on("node-1"));
    WorkerExit exit =
        new WorkerExit(
            job.id(), 1, 42, 0, null, null, null, new WorkerGroupEnd(0, null, false, 1, 50L));

    recordEnd.ended(exit, PLACEMENT);

    await().atMost(Duration.ofSeconds(30)).until(() -> stored(job).state().isTerminal());
    assertThat(stored(job).state()).isEqualTo(JobState.SUCCEEDED);
  }

  @Test
  void a_worker_that_exits_0_after_an_oom_kill_in_its_group_succeeds() throws Exception {
    Job job = running(aRunningJob().on("node-1"));
    WorkerExit exit =
        new WorkerExit(job.id(), 1, 42, 0, null, null, null, new WorkerGroupEnd(1, null, false));

    recordEnd.ended(exit, PLACEMENT);

    await().atMost(Duration.ofSeconds(30)).until(() -> stored(job).state().isTerminal());
    assertThat(stored(job).state()).isEqualTo(JobState.SUCCEEDED);
  }

  @Test
  void a_worker_that_could_not_enter_its_cgroup_is_a_LAUNCH_ERROR_never_retried() throws Exception {
    Job job = running(aRunningJob().spec(s -> s.attempts(3)).on("node-1"));
    WorkerExit exit =
        new WorkerExit(
            job.id(), 1, 42, 125, null, null, null, WorkerGroupEnd.NONE.withNotEntered(true));

    recordEnd.ended(exit, PLACEMENT);

    await().atMost(Duration.ofSeconds(30)).until(() -> stored(job).state().isTerminal());
    assertThat(stored(job).failureReason()).isEqualTo(FailureReason.LAUNCH_ERROR);
    assertThat(stored(job).failureMessage()).contains("cgroup");
  }

  @Test
  void a_gpu_out_of_memory_error_in_this_attempts_log_is_OUT_OF_MEMORY() throws Exception {
    Job job = running(aRunningJob().on("node-1"));

    recordEnd.ended(
        exitOf(
            job,
            "/bin/sh",
            "-c",
            "echo 'torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB.' >&2;"
                + " exit 1"),
        PLACEMENT);

    await().atMost(Duration.ofSeconds(30)).until(() -> stored(job).state().isTerminal());
    Job failed = stored(job);
    assertThat(failed.failureReason()).isEqualTo(FailureReason.OUT_OF_MEMORY);
    assertThat(failed.failureMessage())
        .startsWith("exited with code 1; ")
        .contains("CUDA out of memory");
    assertThat(failed.exitCode()).isEqualTo(1);
  }

  @Test
  void an_attempt_is_judged_only_by_what_it_wrote_itself() {
    String log =
        "torch.OutOfMemoryError: CUDA out of memory.\n"
            + "=== gpuq: attempt 2 ===\n"
            + "Traceback: ValueError\n";

    assertThat(RecordWorkerEnd.thisAttempt(log))
        .isEqualTo("=== gpuq: attempt 2 ===\nTraceback: ValueError\n");
    assertThat(RecordWorkerEnd.thisAttempt("only one attempt\n")).isEqualTo("only one attempt\n");
  }

  @Test
  void a_worker_stopped_over_budget_is_OVER_BUDGET_its_log_saying_why_before_the_end_is_recorded()
      throws Exception {
    Job job = running(aRunningJob().on("node-1"));
    local.launch(job.id(), "/bin/sleep", "60");
    String words = "it used 1.36GiB on GPU 1, over its budget of 1GiB (+64MiB tolerance)";
    local.workers().stop(job.id(), StopReason.OVER_BUDGET, words);
    WorkerExit exit = local.exitOf(job.id()).get(30, TimeUnit.SECONDS);
    Path log = new JobFiles(dataDir).log(job.id());
    List<String> logAtRecord = new CopyOnWriteArrayList<>();
    RecordWorkerEnd readsTheLog = aRecorderOver(jobs, jobId -> logAtRecord.add(read(log)));

    readsTheLog.ended(exit, PLACEMENT);

    await().atMost(Duration.ofSeconds(30)).until(() -> stored(job).state().isTerminal());
    Job failed = stored(job);
    assertThat(failed.state()).isEqualTo(JobState.FAILED);
    assertThat(failed.failureReason()).isEqualTo(FailureReason.OVER_BUDGET);
    assertThat(failed.failureMessage()).isEqualTo("stopped: " + words);
    assertThat(logAtRecord)
        .singleElement()
        .asString()
        .endsWith("=== gpuq: stopped: " + words + " ===\n");
  }

  @Test
  void an_end_the_database_could_not_write_is_tried_again_and_heard_as_stored_once_written()
      throws Exception {
    Job job = running(aRunningJob().on("node-1"));
    RecordWorkerEnd overAFullDisk =
        aRecorderOver(new JobService(EndsStoredLater.afterUnavailable(store, 1), clock, List.of()));

    overAFullDisk.ended(exitOf(job, "/bin/true"), PLACEMENT);

    await().atMost(Duration.ofSeconds(30)).until(() -> stored(job).state().isTerminal());
    assertThat(stored(job).state()).isEqualTo(JobState.SUCCEEDED);
    await().atMost(Duration.ofSeconds(30)).until(() -> heard.size() == 3);
    assertThat(heard)
        .containsExactly(
            "capacity freed (RUNNING)",
            "before the end is recorded (RUNNING)",
            "end stored (SUCCEEDED)");
  }

  @Test
  void an_end_not_written_yet_is_known_as_such_until_it_is_stored() throws Exception {
    Job job = running(aRunningJob().on("node-1"));
    Job other = aRunningJob().on("node-1").in(store);
    // Three writes fail: the end is tried again after 0.5, 1 and 2 s (gpuq waits 1, 2 and 4 s):
    // the two checks right after the end have 3.5 s to see it not stored yet.
    RecordWorkerEnd overAFullDisk =
        aRecorderOver(
            new JobService(EndsStoredLater.afterUnavailable(store, 3), clock, List.of()),
            jobId -> {},
            Duration.ofMillis(500));
    assertThat(overAFullDisk.endNotStoredYet(job.id())).isFalse();

    overAFullDisk.ended(exitOf(job, "/bin/true"), PLACEMENT);

    assertThat(overAFullDisk.endNotStoredYet(job.id())).isTrue();
    assertThat(overAFullDisk.endNotStoredYet(other.id())).isFalse();
    await().atMost(Duration.ofSeconds(60)).until(() -> stored(job).state().isTerminal());
    await().atMost(Duration.ofSeconds(30)).until(() -> !overAFullDisk.endNotStoredYet(job.id()));
  }

  private static String read(Path log) {
    try {
      return Files.readString(log);
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }
}
