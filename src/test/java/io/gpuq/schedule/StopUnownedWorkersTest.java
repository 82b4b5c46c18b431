package io.gpuq.schedule;

import static io.gpuq.job.JobBuilder.T0;
import static io.gpuq.job.JobBuilder.aRunningJob;
import static org.assertj.core.api.Assertions.assertThat;

import io.gpuq.job.InMemoryJobStore;
import io.gpuq.job.JobService;
import io.gpuq.launch.RunningWorker;
import io.gpuq.launch.StopReason;
import io.gpuq.launch.WorkerExit;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.ZoneOffset;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

@DisplayName("Stopping the workers whose attempts the store no longer gives this node")
class StopUnownedWorkersTest {

  private final InMemoryJobStore store = new InMemoryJobStore();
  private final Clock clock = Clock.fixed(T0, ZoneOffset.UTC);
  private final JobService jobs = new JobService(store, clock, List.of());
  @TempDir Path dataDir;
  private LocalWorkers local;
  private StopUnownedWorkers stopUnowned;

  @BeforeEach
  void workersOnNode1() {
    local = new LocalWorkers(dataDir, clock);
    stopUnowned = new StopUnownedWorkers(jobs, local.workers(), "node-1");
  }

  @AfterEach
  void killWhatIsLeft() {
    local.close();
  }

  @Test
  void a_worker_whose_job_was_cancelled_anywhere_is_stopped_as_cancelled() throws Exception {
    String id = aRunningJob().on("node-1").in(store).id();
    local.launch(id, "sleep", "60");
    jobs.cancel(
        new io.gpuq.job.Caller("alice", io.gpuq.job.Caller.Role.SUBMITTER),
        id,
        // As another node's cancel: it cannot reach this node's worker.
        job -> {});

    assertThat(stopUnowned.runOnce()).isOne();

    WorkerExit exit = local.exitOf(id).get(30, TimeUnit.SECONDS);
    assertThat(exit.stopReason()).isEqualTo(StopReason.CANCELLED);
  }

  @Test
  void a_worker_whose_trial_was_pruned_anywhere_is_stopped_as_pruned_and_its_trial_stays_pruned()
      throws Exception {
    String id = aRunningJob().on("node-1").in(store).id();
    local.launch(id, "sleep", "60");
    store.prune(id, "stopped by the sweep's early-stopping rule (median) at step 40", T0);

    stopUnowned.runOnce();

    WorkerExit exit = local.exitOf(id).get(30, TimeUnit.SECONDS);
    assertThat(exit.stopReason()).isEqualTo(StopReason.PRUNED);
    jobs.recordAttemptEnd(id, 1, new io.gpuq.job.AttemptOutcome(null, "pruned", 143), 0);
    assertThat(store.find(id).orElseThrow().state()).isEqualTo(io.gpuq.job.JobState.PRUNED);
    assertThat(store.find(id).orElseThrow().exitCode()).isEqualTo(143);
  }

  @Test
  void a_worker_whose_job_was_declared_lost_and_requeued_is_stopped_as_stale() throws Exception {
    String id = aRunningJob().spec(s -> s.attempts(2)).on("node-1").in(store).id();
    local.launch(id, "sleep", "60");
    jobs.declareLostOn("node-1", "node node-1 stopped heartbeating");

    stopUnowned.runOnce();

    WorkerExit exit = local.exitOf(id).get(30, TimeUnit.SECONDS);
    assertThat(exit.stopReason()).isEqualTo(StopReason.STALE);
  }

  @Test
  void a_worker_whose_job_still_runs_here_runs_on() {
    String id = aRunningJob().on("node-1").in(store).id();
    local.launch(id, "sleep", "60");

    assertThat(stopUnowned.runOnce()).isZero();

    assertThat(local.workers().live())
        .singleElement()
        .satisfies(worker -> assertThat(worker.stopReason()).isNull());
    assertThat(local.exitOf(id)).isNotDone();
  }

  @Test
  void a_worker_being_stopped_already_keeps_its_first_reason() throws Exception {
    String id = aRunningJob().on("node-1").in(store).id();
    local.launch(id, Duration.ofMinutes(1), "sleep", "60");
    local.workers().stop(id, StopReason.TIMEOUT);
    store.cancel(id, T0);

    stopUnowned.runOnce();

    assertThat(local.exitOf(id).get(30, TimeUnit.SECONDS).stopReason())
        .isEqualTo(StopReason.TIMEOUT);
  }

  @Test
  void a_worker_that_ended_after_the_live_list_was_read_is_not_stopped_again() throws Exception {
    String id = aRunningJob().on("node-1").in(store).id();
    RunningWorker read = local.launch(id, "sleep", "60");
    // Its job is cancelled and its worker ends and leaves the live list before the next reads.
    jobs.cancel(new io.gpuq.job.Caller("alice", io.gpuq.job.Caller.Role.SUBMITTER), id, job -> {});
    local.workers().stop(id, StopReason.CANCELLED);
    local.exitOf(id).get(30, TimeUnit.SECONDS);

    assertThat(local.workers().stop(read, StopReason.STALE)).isFalse();
    assertThat(local.exitOf(id).get().stopReason()).isEqualTo(StopReason.CANCELLED);
  }

  @Test
  void a_worker_read_before_a_later_attempt_replaced_it_never_stops_that_attempt()
      throws Exception {
    String id = aRunningJob().spec(s -> s.attempts(2)).on("node-1").in(store).id();
    RunningWorker first = local.launch(id, "sleep", "60");
    // The job is lost, requeued and claimed here again while attempt 1 still runs: attempt 2
    // replaces it as the job's live worker, and attempt 1 is stopped as stale.
    RunningWorker second = local.launchAttempt(id, 2, "sleep", "60");

    assertThat(local.workers().stop(first, StopReason.STALE)).isFalse();
    assertThat(second.stopReason()).isNull();
    assertThat(local.workers().live()).containsExactly(second);
  }
}
