package io.gpuq.schedule;

import static io.gpuq.job.JobBuilder.aQueuedJob;
import static io.gpuq.job.JobBuilder.aRunningJob;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.gpuq.fairshare.Limits;
import io.gpuq.fairshare.OwnerTerms;
import io.gpuq.gpu.GpuInventory;
import io.gpuq.gpu.GpuUsage;
import io.gpuq.gpu.emulated.EmulatedGpuBackend;
import io.gpuq.job.FailureReason;
import io.gpuq.job.InMemoryJobStore;
import io.gpuq.job.Job;
import io.gpuq.job.JobService;
import io.gpuq.job.JobState;
import io.gpuq.job.Preemption;
import io.gpuq.job.QueueHead;
import io.gpuq.job.StopSignal;
import io.gpuq.job.SweepTrial;
import io.gpuq.launch.JobFiles;
import io.gpuq.placement.Headroom;
import io.gpuq.placement.PlacementPolicy;
import io.gpuq.placement.Placer;
import io.gpuq.proc.ProcFs;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The scheduler's steps as {@link SchedulerBuilder} wires them, over the in-memory store, with real
 * worker processes on a CPU-only node of two slots.
 */
@DisplayName("The scheduler's steps over the in-memory store")
class SchedulerStepsTest {

  private final InMemoryJobStore store = new InMemoryJobStore();
  private final Clock clock = Clock.systemUTC();
  private final JobService jobs = new JobService(store, clock, List.of());
  @TempDir Path dataDir;
  private LocalWorkers local;
  private Scheduler scheduler;

  @BeforeEach
  void aNodeWithTwoCpuSlots() {
    local = new LocalWorkers(dataDir, clock);
    scheduler = aSchedulerOver(jobs);
  }

  private Scheduler aSchedulerOver(JobService jobs) {
    return aBuilderOver(jobs).cpuSlots(2).safetyNet(Duration.ofMinutes(10)).build();
  }

  /** The scheduler of node-1 over these jobs, its slots and safety net left to the test. */
  private SchedulerBuilder aBuilderOver(JobService jobs) {
    return new SchedulerBuilder(
        jobs,
        local.workers(),
        new JobFiles(dataDir),
        new Placer(new PlacementPolicy(Headroom.NONE, Duration.ZERO, Duration.ZERO, 8)),
        clock,
        "node-1");
  }

  @AfterEach
  void stop() {
    scheduler.loop().stop();
    local.close();
  }

  private Job state(Job job) {
    return store.find(job.id()).orElseThrow();
  }

  @Test
  void a_pass_starts_as_many_queued_jobs_as_there_are_free_slots_in_scheduling_order() {
    Job low = aQueuedJob().priority(0).spec(s -> s.command("/bin/sleep", "60")).in(store);
    Job high = aQueuedJob().priority(9).spec(s -> s.command("/bin/sleep", "60")).in(store);
    Job middle = aQueuedJob().priority(5).spec(s -> s.command("/bin/sleep", "60")).in(store);

    DispatchResult result = scheduler.dispatcher().dispatch(false);

    assertThat(result.started()).isEqualTo(2);
    assertThat(state(high).state()).isEqualTo(JobState.RUNNING);
    assertThat(state(middle).state()).isEqualTo(JobState.RUNNING);
    assertThat(state(low).state()).isEqualTo(JobState.QUEUED);
    assertThat(state(high).node()).isEqualTo("node-1");
    assertThat(scheduler.dispatcher().dispatch(false).started()).as("no slot left").isZero();
  }

  @Test
  void priority_orders_an_owners_own_jobs_and_a_pass_shares_the_free_slots_between_owners() {
    Job alicesUrgent =
        aQueuedJob()
            .ownedBy("alice")
            .priority(9)
            .spec(s -> s.command("/bin/sleep", "60"))
            .in(store);
    Job alicesNext =
        aQueuedJob()
            .ownedBy("alice")
            .priority(9)
            .spec(s -> s.command("/bin/sleep", "60"))
            .in(store);
    Job bobs =
        aQueuedJob().ownedBy("bob").priority(0).spec(s -> s.command("/bin/sleep", "60")).in(store);
    Job alicesLow =
        aQueuedJob()
            .ownedBy("alice")
            .priority(0)
            .spec(s -> s.command("/bin/sleep", "60"))
            .in(store);

    DispatchResult result = scheduler.dispatcher().dispatch(false);

    assertThat(result.started()).isEqualTo(2);
    assertThat(state(alicesUrgent).state()).isEqualTo(JobState.RUNNING);
    assertThat(state(bobs).state())
        .as("alice's priority does not jump bob's job")
        .isEqualTo(JobState.RUNNING);
    assertThat(state(alicesNext).state()).isEqualTo(JobState.QUEUED);
    assertThat(state(alicesLow).state()).isEqualTo(JobState.QUEUED);
    assertThat(scheduler.queuedReasons().of(state(alicesNext)))
        .isEqualTo("bob's turn first: alice holds 50% of the CPU slots at share 1 of 2");
  }

  @Test
  void a_pass_starts_no_more_trials_than_their_sweeps_limit_and_gives_the_slot_to_the_job_behind() {
    store.limitTrials("sweep-1", 1);
    List<Job> trials = new ArrayList<>();
    for (int n = 0; n < 3; n++) {
      trials.add(
          aQueuedJob()
              .trialOf(new SweepTrial("sweep-1", n, "{}"))
              .spec(s -> s.command("/bin/sleep", "60"))
              .in(store));
    }
    Job behind = aQueuedJob().spec(s -> s.command("/bin/sleep", "60")).in(store);

    DispatchResult result = scheduler.dispatcher().dispatch(false);

    assertThat(result.started()).isEqualTo(2);
    assertThat(state(trials.get(0)).state()).isEqualTo(JobState.RUNNING);
    assertThat(state(behind).state()).isEqualTo(JobState.RUNNING);
    assertThat(state(trials.get(1)).state()).isEqualTo(JobState.QUEUED);
    assertThat(scheduler.queuedReasons().of(state(trials.get(1))))
        .isEqualTo("sweep at maxConcurrent 1");
    assertThat(scheduler.queuedReasons().of(state(behind))).isNull();
  }

  @Test
  void the_loop_starts_a_held_back_trial_once_the_end_of_its_sweeps_running_one_is_stored() {
    scheduler.loop().stop();
    // Ends are stored 300 ms after the worker's place is free, as a group commit may: the pass
    // that the freed place wakes still counts the ended trial as running.
    JobService lateEnds =
        new JobService(new EndsStoredLater(store, Duration.ofMillis(300)), clock, List.of());
    Scheduler late = aSchedulerOver(lateEnds);
    store.limitTrials("sweep-1", 1);
    List<Job> trials = new ArrayList<>();
    for (int n = 0; n < 3; n++) {
      trials.add(
          aQueuedJob()
              .trialOf(new SweepTrial("sweep-1", n, "{}"))
              .spec(s -> s.command("/bin/true"))
              .in(store));
    }

    late.loop().start();
    try {
      // Only the stored end can start the next trial: the safety net is ten minutes away.
      await()
          .atMost(Duration.ofSeconds(30))
          .until(() -> trials.stream().allMatch(job -> state(job).state() == JobState.SUCCEEDED));
    } finally {
      late.loop().stop();
    }
  }

  @Test
  void a_queued_job_no_pass_has_seen_says_so_and_one_past_the_free_slots_waits_for_one() {
    Job first = aQueuedJob().spec(s -> s.command("/bin/sleep", "60")).in(store);
    assertThat(scheduler.queuedReasons().of(state(first)))
        .isEqualTo("not yet considered by a scheduling pass");
    aQueuedJob().spec(s -> s.command("/bin/sleep", "60")).in(store);
    Job third = aQueuedJob().spec(s -> s.command("/bin/sleep", "60")).in(store);

    scheduler.dispatcher().dispatch(false);

    assertThat(scheduler.queuedReasons().of(state(third)))
        .isEqualTo("waiting for a free CPU slot on node node-1");
  }

  @Test
  @DisplayName(
      "a GPU job queued behind the last read of a long queue wakes no pass, also while a pass"
          + " runs; a pass that moves the queue after one was passed over asks for another")
  void a_gpu_job_passed_over_while_a_pass_runs_gets_a_pass_once_the_queue_moves() {
    // Issue 34: were the last read forgotten while a pass ran, each submission during a pass
    // woke the next, and a burst of submissions kept the scheduler reading the lookahead.
    AtomicReference<Runnable> whileReading = new AtomicReference<>(() -> {});
    JobService reading =
        new JobService(store, clock, List.of()) {
          @Override
          public QueueHead queueHead(
              int cpuPerOwner, int cpuOnlyLimit, int gpuPerOwner, int gpuLimit) {
            whileReading.get().run();
            return super.queueHead(cpuPerOwner, cpuOnlyLimit, gpuPerOwner, gpuLimit);
          }
        };
    EmulatedGpuBackend gpu =
        EmulatedGpuBackend.create(1, 8L << 30, "emulated", new ProcFs(Path.of("/proc")), clock);
    Scheduler gpuNode =
        aBuilderOver(reading)
            .cpuSlots(2)
            .gpus(
                gpu,
                new GpuInventory("emulated", gpu.devices(), Optional.empty()),
                () -> GpuUsage.none(clock.instant()))
            .safetyNet(Duration.ofMinutes(10))
            .build();
    Dispatcher dispatcher = gpuNode.dispatcher();
    // Ten GPU jobs for another pool: the pass reads the lookahead (8) of them and starts none.
    for (int n = 0; n < 10; n++) {
      aQueuedJob()
          .ownedBy("alice")
          .onAGpu()
          .spec(s -> s.nodeSelector(Map.of("pool", "other")))
          .in(store);
    }
    assertThat(dispatcher.dispatch(true).started()).isZero();
    Job behind =
        aQueuedJob()
            .ownedBy("alice")
            .onAGpu()
            .spec(s -> s.nodeSelector(Map.of("pool", "other")))
            .in(store);
    assertThat(dispatcher.wouldSee("alice", 0, behind.id())).isFalse();

    // A pass under way that starts nothing: the read stands while it runs.
    List<Boolean> seenWhileReading = new ArrayList<>();
    whileReading.set(() -> seenWhileReading.add(dispatcher.wouldSee("alice", 0, behind.id())));
    assertThat(dispatcher.dispatch(true).started()).isZero();
    assertThat(seenWhileReading).containsOnly(false);
    assertThat(dispatcher.followUpWanted()).isFalse();

    // A pass that moves the queue (it starts a CPU-only job) while a job was passed over.
    whileReading.set(() -> {});
    Job cpuJob = aQueuedJob().ownedBy("bob").spec(s -> s.command("/bin/true")).in(store);
    assertThat(dispatcher.wouldSee("alice", 0, behind.id())).isFalse();
    assertThat(dispatcher.dispatch(true).started()).isEqualTo(1);
    assertThat(dispatcher.followUpWanted())
        .as("the job passed over may be within reach now")
        .isTrue();
    assertThat(dispatcher.wouldSee("alice", 0, behind.id()))
        .as("no read stands after a pass that moved the queue")
        .isTrue();
    await().atMost(Duration.ofSeconds(30)).until(() -> state(cpuJob).state().isTerminal());

    // The next pass reads again and moves nothing; one that then moves it with none passed over
    // asks for nothing more.
    assertThat(dispatcher.dispatch(true).started()).isZero();
    aQueuedJob().ownedBy("bob").spec(s -> s.command("/bin/true")).in(store);
    assertThat(dispatcher.dispatch(true).started()).isEqualTo(1);
    assertThat(dispatcher.followUpWanted()).isFalse();
  }

  @Test
  @DisplayName(
      "a job beyond the pass's lookahead is told what the pass read, not counted in the store"
          + " again")
  void a_job_beyond_the_lookahead_is_told_what_the_last_pass_read() {
    // Eight jobs of lookahead, twelve jobs for another pool: the pass reads eight and starts none.
    List<Job> queued = new ArrayList<>();
    for (int n = 0; n < 12; n++) {
      queued.add(
          aQueuedJob()
              .spec(s -> s.command("/bin/true").nodeSelector(java.util.Map.of("pool", "other")))
              .in(store));
    }
    Job urgentBehind =
        aQueuedJob()
            .priority(-1)
            .spec(s -> s.command("/bin/true").nodeSelector(java.util.Map.of("pool", "other")))
            .in(store);

    scheduler.dispatcher().dispatch(false);

    assertThat(scheduler.queuedReasons().of(state(queued.get(7))))
        .isEqualTo("node node-1 does not match nodeSelector {pool=other}");
    String behindTheHead =
        "behind the first 8 queued jobs, which the last scheduling pass considered";
    assertThat(scheduler.queuedReasons().of(state(queued.get(8)))).isEqualTo(behindTheHead);
    assertThat(scheduler.queuedReasons().of(state(urgentBehind))).isEqualTo(behindTheHead);

    // The jobs ahead leave the queue after the pass: a reason is what that pass saw, read from
    // its record alone, and is not counted again in the queue per job read.
    queued.subList(0, 5).forEach(job -> store.cancel(job.id(), clock.instant()));
    assertThat(scheduler.queuedReasons().of(List.of(state(queued.get(11)), state(queued.get(0)))))
        .containsEntry(queued.get(11).id(), behindTheHead)
        .containsEntry(queued.get(0).id(), null);
  }

  @Test
  @DisplayName(
      "jobs held back by their owner's max-running-jobs say the limit, those beyond the pass's read"
          + " too")
  void jobs_beyond_the_read_of_an_owner_at_max_running_jobs_say_the_limit() {
    FairShareInputs alone = FairShareInputs.ALONE;
    scheduler.loop().stop();
    scheduler =
        aBuilderOver(jobs)
            .cpuSlots(2)
            .safetyNet(Duration.ofMinutes(10))
            .fairShare(
                new FairShareInputs(
                    java.util.Map.of(
                        "alice",
                        new OwnerTerms(
                            1, new Limits(1, Double.POSITIVE_INFINITY, Limits.UNLIMITED, 100))),
                    alone.otherNodes(),
                    alone.ledger(),
                    alone.halfLife(),
                    alone.accountEvery()))
            .build();
    List<Job> queued = new ArrayList<>();
    for (int n = 0; n < 12; n++) {
      queued.add(aQueuedJob().ownedBy("alice").spec(s -> s.command("/bin/sleep", "60")).in(store));
    }
    Job bobs = aQueuedJob().ownedBy("bob").spec(s -> s.command("/bin/sleep", "60")).in(store);

    scheduler.dispatcher().dispatch(false);

    // Two free slots: the pass read alice's first two and bob's, started one of hers and his.
    assertThat(state(queued.get(0)).state()).isEqualTo(JobState.RUNNING);
    assertThat(state(bobs).state()).isEqualTo(JobState.RUNNING);
    String atLimit = "at your limit of 1 running job (max-running-jobs)";
    assertThat(scheduler.queuedReasons().of(state(queued.get(1)))).isEqualTo(atLimit);
    // Not "behind the first 3 queued jobs": the limit holds them back wherever they are.
    for (Job behind : queued.subList(2, 12)) {
      assertThat(scheduler.queuedReasons().of(state(behind))).isEqualTo(atLimit);
    }
  }

  @Test
  void a_launched_worker_is_watched_and_its_end_recorded_with_its_exit_code() {
    Job succeeds = aQueuedJob().spec(s -> s.command("/bin/true")).in(store);
    Job fails = aQueuedJob().spec(s -> s.command("/bin/sh", "-c", "exit 3")).in(store);

    scheduler.dispatcher().dispatch(false);

    await().atMost(Duration.ofSeconds(30)).until(() -> state(fails).state().isTerminal());
    await().atMost(Duration.ofSeconds(30)).until(() -> state(succeeds).state().isTerminal());
    assertThat(state(succeeds).state()).isEqualTo(JobState.SUCCEEDED);
    assertThat(state(succeeds).attempts().get(0).pid()).isPositive();
    Job failed = state(fails);
    assertThat(failed.state()).isEqualTo(JobState.FAILED);
    assertThat(failed.failureReason()).isEqualTo(FailureReason.EXIT_CODE);
    assertThat(failed.failureMessage()).isEqualTo("exited with code 3");
    assertThat(failed.exitCode()).isEqualTo(3);
  }

  @Test
  void the_loop_starts_the_next_jobs_as_workers_free_their_slots() {
    List<Job> queued =
        List.of(
            aQueuedJob().spec(s -> s.command("/bin/true")).in(store),
            aQueuedJob().spec(s -> s.command("/bin/true")).in(store),
            aQueuedJob().spec(s -> s.command("/bin/true")).in(store),
            aQueuedJob().spec(s -> s.command("/bin/true")).in(store));

    scheduler.loop().start();

    // Two slots for four jobs: the last two start only because the first two freed theirs (the
    // safety net is ten minutes away).
    await()
        .atMost(Duration.ofSeconds(30))
        .until(() -> queued.stream().allMatch(job -> state(job).state() == JobState.SUCCEEDED));
  }

  @Test
  void a_job_left_running_here_whose_worker_is_gone_is_recorded_as_lost_at_restart() {
    Job left = aRunningJob().on("node-1").in(store);
    Job elsewhere = aRunningJob().on("node-2").in(store);

    scheduler.recovery().start();

    await().atMost(Duration.ofSeconds(30)).until(() -> state(left).state().isTerminal());
    Job recovered = state(left);
    assertThat(recovered.state()).isEqualTo(JobState.FAILED);
    assertThat(recovered.failureReason()).isEqualTo(FailureReason.LOST);
    assertThat(state(elsewhere).state()).isEqualTo(JobState.RUNNING);
    assertThat(scheduler.recovery().isRunning()).isTrue();
  }

  @Test
  @DisplayName(
      "with over-share-requires-preemptible, a job that may not be preempted waits above its"
          + " owner's share, and their preemptible job behind it takes the idle slot (issue 35)")
  void over_share_requires_preemptible() {
    Scheduler ruled =
        aBuilderOver(jobs)
            .cpuSlots(4)
            .safetyNet(Duration.ofMinutes(10))
            .preemption(new Dispatcher.PreemptionSettings(Duration.ZERO, reason -> {}, true))
            .build();
    try {
      Preemption preemptible = new Preemption(true, Duration.ofSeconds(1), StopSignal.TERM);
      Job bobs = aQueuedJob().ownedBy("bob").spec(s -> s.command("/bin/sleep", "60")).in(store);
      List<Job> alices = new ArrayList<>();
      for (int n = 0; n < 3; n++) {
        alices.add(
            aQueuedJob().ownedBy("alice").spec(s -> s.command("/bin/sleep", "60")).in(store));
      }
      Job alicesPreemptible =
          aQueuedJob()
              .ownedBy("alice")
              .spec(s -> s.command("/bin/sleep", "60").preemption(preemptible))
              .in(store);

      DispatchResult result = ruled.dispatcher().dispatch(false);

      // Four slots, two owners of share 1: alice's share is two slots.
      assertThat(result.started()).isEqualTo(4);
      assertThat(state(bobs).state()).isEqualTo(JobState.RUNNING);
      assertThat(state(alices.get(0)).state()).isEqualTo(JobState.RUNNING);
      assertThat(state(alices.get(1)).state()).isEqualTo(JobState.RUNNING);
      assertThat(state(alices.get(2)).state()).isEqualTo(JobState.QUEUED);
      assertThat(ruled.queuedReasons().of(state(alices.get(2))))
          .isEqualTo("over your share; preemptible jobs may use idle GPUs");
      assertThat(state(alicesPreemptible).state()).isEqualTo(JobState.RUNNING);
    } finally {
      ruled.loop().stop();
    }
  }

  @Test
  @DisplayName(
      "a CPU-only job of an owner below their share has a preemptible CPU-only job preempted for"
          + " it while no slot is free, and starts in the slot it freed (issue 35)")
  void a_cpu_only_job_gets_the_slot_a_preemption_frees() {
    scheduler.loop().stop();
    Scheduler oneSlot =
        aBuilderOver(jobs)
            .cpuSlots(1)
            .safetyNet(Duration.ofMillis(200))
            .preemption(new Dispatcher.PreemptionSettings(Duration.ZERO, reason -> {}, false))
            .build();
    try {
      Preemption preemptible = new Preemption(true, Duration.ofSeconds(1), StopSignal.TERM);
      Job alices =
          aQueuedJob()
              .ownedBy("alice")
              .spec(s -> s.command("/bin/sleep", "60").preemption(preemptible))
              .in(store);
      oneSlot.loop().start();
      await().atMost(Duration.ofSeconds(30)).until(() -> state(alices).state() == JobState.RUNNING);

      Job bobs = aQueuedJob().ownedBy("bob").spec(s -> s.command("/bin/sleep", "60")).in(store);

      await().atMost(Duration.ofSeconds(60)).until(() -> state(bobs).state() == JobState.RUNNING);
      assertThat(state(alices).state()).isEqualTo(JobState.QUEUED);
      assertThat(state(alices).requeues()).isEqualTo(1);
    } finally {
      oneSlot.loop().stop();
    }
  }
}
