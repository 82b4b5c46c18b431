package io.gpuq.schedule;

import static io.gpuq.job.JobBuilder.aQueuedJob;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.gpuq.gpu.GpuInventory;
import io.gpuq.gpu.GpuUsage;
import io.gpuq.gpu.emulated.EmulatedGpuBackend;
import io.gpuq.job.ClaimedJob;
import io.gpuq.job.FailureReason;
import io.gpuq.job.InMemoryJobStore;
import io.gpuq.job.Job;
import io.gpuq.job.JobPlacement;
import io.gpuq.job.JobService;
import io.gpuq.job.JobState;
import io.gpuq.job.WorkerProcess;
import io.gpuq.launch.LaunchRequest;
import io.gpuq.proc.ProcFs;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.BiFunction;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Launching one attempt of a claimed job, over the in-memory store, with real worker processes on a
 * CPU-only node-1: the worker's exit goes to {@link RecordWorkerEnd}; a launch that fails ends the
 * attempt here.
 */
@DisplayName("Launching a claimed job's worker")
class JobExecutionTest {

  private static final JobPlacement PLACEMENT = JobPlacement.cpuOnly("node-1");
  private static final BiFunction<ClaimedJob, JobPlacement, LaunchRequest> NO_SETUP =
      (job, placement) -> LaunchRequest.bare(job, placement);

  private final InMemoryJobStore store = new InMemoryJobStore();
  private final Clock clock = Clock.systemUTC();
  private final JobService jobs = new JobService(store, clock, List.of());
  private final List<String> heard = new CopyOnWriteArrayList<>();
  @TempDir Path dataDir;
  private LocalWorkers local;

  @BeforeEach
  void workersOnNode1() {
    local = new LocalWorkers(dataDir, clock);
  }

  @AfterEach
  void killWhatIsLeft() {
    local.close();
  }

  private JobExecution anExecution(BiFunction<ClaimedJob, JobPlacement, LaunchRequest> setup) {
    ProcFs procFs = new ProcFs(Path.of("/proc"));
    EmulatedGpuBackend gpus = new EmulatedGpuBackend(List.of(), procFs, clock);
    RecordWorkerEnd recordEnd =
        new RecordWorkerEnd(
            jobs,
            local.exitJudging(),
            new NodeGpus(
                gpus,
                new GpuInventory("emulated", List.of(), Optional.empty()),
                () -> GpuUsage.none(clock.instant())),
            new WorkerEndListener() {
              @Override
              public void capacityFreed(JobPlacement placement) {
                heard.add("capacity freed by an exit");
              }

              @Override
              public void endStored(JobPlacement placement) {
                heard.add("end stored");
              }

              @Override
              public void beforeEndRecorded(String jobId) {}
            });
    return new JobExecution(
        jobs,
        local.workers(),
        new WorkerHost(setup, gpus, procFs),
        placement -> heard.add("capacity freed by a failed launch"),
        recordEnd);
  }

  /** The job, claimed by node-1 as a scheduling pass claims it. */
  private ClaimedJob claimed(Job job) {
    return jobs.markStarted(job.id(), PLACEMENT).orElseThrow();
  }

  private Job stored(Job job) {
    return store.find(job.id()).orElseThrow();
  }

  @Test
  void a_launched_worker_is_returned_with_its_pid_and_its_exit_recorded_as_the_attempts_end() {
    Job job = aQueuedJob().spec(s -> s.command("/bin/sh", "-c", "exit 0")).in(store);

    Optional<WorkerProcess> process = anExecution(NO_SETUP).launch(claimed(job), PLACEMENT);

    assertThat(process).isPresent();
    assertThat(process.get().pid()).isPositive();
    assertThat(process.get().jobId()).isEqualTo(job.id());
    await().atMost(Duration.ofSeconds(30)).until(() -> stored(job).state().isTerminal());
    assertThat(stored(job).state()).isEqualTo(JobState.SUCCEEDED);
    await().atMost(Duration.ofSeconds(30)).until(() -> heard.size() == 2);
    assertThat(heard).containsExactly("capacity freed by an exit", "end stored");
  }

  @Test
  void a_program_that_does_not_exist_ends_the_attempt_as_LAUNCH_ERROR_and_frees_its_place() {
    Job job = aQueuedJob().spec(s -> s.command("no-such-program-gpuq-test", "--flag")).in(store);

    Optional<WorkerProcess> process = anExecution(NO_SETUP).launch(claimed(job), PLACEMENT);

    assertThat(process).isEmpty();
    Job failed = stored(job);
    assertThat(failed.state()).isEqualTo(JobState.FAILED);
    assertThat(failed.failureReason()).isEqualTo(FailureReason.LAUNCH_ERROR);
    assertThat(failed.failureMessage()).contains("no-such-program-gpuq-test");
    assertThat(heard).containsExactly("capacity freed by a failed launch");
  }

  @Test
  void a_worker_setup_that_fails_ends_the_attempt_as_LAUNCH_ERROR_with_its_reason() {
    Job job = aQueuedJob().spec(s -> s.command("/bin/true")).in(store);
    BiFunction<ClaimedJob, JobPlacement, LaunchRequest> accountGone =
        (claimed, placement) -> {
          throw new IllegalStateException("account gpuq-alice is gone");
        };

    Optional<WorkerProcess> process = anExecution(accountGone).launch(claimed(job), PLACEMENT);

    assertThat(process).isEmpty();
    Job failed = stored(job);
    assertThat(failed.state()).isEqualTo(JobState.FAILED);
    assertThat(failed.failureReason()).isEqualTo(FailureReason.LAUNCH_ERROR);
    assertThat(failed.failureMessage()).isEqualTo("account gpuq-alice is gone");
    assertThat(heard).containsExactly("capacity freed by a failed launch");
  }
}
