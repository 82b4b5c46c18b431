package io.gpuq.job;

import static io.gpuq.job.JobBuilder.T0;
import static io.gpuq.job.JobBuilder.aFailedJob;
import static io.gpuq.job.JobBuilder.aJobCancelledWhileQueued;
import static io.gpuq.job.JobBuilder.aJobCancelledWhileRunning;
import static io.gpuq.job.JobBuilder.aLostJob;
import static io.gpuq.job.JobBuilder.aQueuedJob;
import static io.gpuq.job.JobBuilder.aRequeuedJob;
import static io.gpuq.job.JobBuilder.aRunningJob;
import static io.gpuq.job.JobBuilder.aSucceededJob;
import static io.gpuq.job.JobSpecs.aSpec;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.tuple;

import io.gpuq.concurrency.TrialSlots;
import io.gpuq.job.Caller.Role;
import io.gpuq.placement.PlacedGpu;
import io.gpuq.reported.MetricsCaps;
import io.gpuq.reported.MetricsPage;
import io.gpuq.reported.MetricsUpdate;
import io.gpuq.reported.ReadingState;
import io.gpuq.reported.ReportedMetrics;
import io.gpuq.reported.ReportedPoint;
import io.gpuq.reported.ReportingJob;
import io.gpuq.reported.SweepObjective;
import io.gpuq.text.Cpus;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.IntFunction;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * What gpuq needs of a {@link JobStore}, run unchanged on every store: H2 in PostgreSQL mode (one
 * node), PostgreSQL (several nodes sharing one database) and memory (the scheduler's unit tests).
 * Each subclass hands in an empty store. Several tests race real threads against each other.
 */
abstract class JobStoreContract {

  static final long GIB = 1L << 30;
  static final Caller ALICE = new Caller("alice", Role.SUBMITTER);
  static final Caller BOB = new Caller("bob", Role.SUBMITTER);
  static final Caller ADMIN = new Caller("root", Role.ADMIN);

  static final JobPlacement TWO_GPUS =
      new JobPlacement(
          "node-1",
          List.of(
              new PlacedGpu(1, "GPU-aaaa-1", 6 * GIB, 16 * GIB),
              new PlacedGpu(3, "GPU-aaaa-3", 6 * GIB, 16 * GIB)),
          0.375);

  final RecordedEvents events = new RecordedEvents();

  /** The store under test, emptied before each test. */
  abstract JobStore store();

  /**
   * Stores a sweep with this metric and rule, as the sweeps table (or the in-memory store) has it.
   */
  abstract void defineSweep(SweepObjective sweep);

  /** The job use cases over that store, with a clock fixed at {@link JobBuilder#T0}. */
  JobService service() {
    return new JobService(store(), Clock.fixed(T0, ZoneOffset.UTC), List.of(events));
  }

  /** The lifecycle events JobService sent, in order. */
  static final class RecordedEvents implements JobLifecycleListener {
    final Queue<String> started = new ConcurrentLinkedQueue<>();
    final Queue<JobState> endedIn = new ConcurrentLinkedQueue<>();

    @Override
    public void attemptStarted(
        String jobId, int attempt, Instant createdAt, Instant queuedAt, Instant startedAt) {
      started.add(jobId + "#" + attempt);
    }

    @Override
    public void attemptEnded(String jobId, int attempt, AttemptOutcome outcome, JobState jobState) {
      endedIn.add(jobState);
    }
  }

  @BeforeEach
  void noEventsYet() {
    events.started.clear();
    events.endedIn.clear();
  }

  /**
   * Stores a sweep that trials can belong to; {@code maxConcurrent} null for no limit. The sweep
   * API is another part of gpuq: a database store gets the row {@code sweeps} holds (V7), the
   * in-memory store the limit.
   */
  abstract void aSweep(String id, Integer maxConcurrent);

  /**
   * Queues {@code count} jobs as this builder makes them, one after another; a database store
   * copies the first in one statement, as submitting them one by one would take minutes.
   */
  void queueMany(JobBuilder job, int count) {
    for (int i = 0; i < count; i++) {
      job.in(store());
    }
  }

  private int sweeps;

  /** A new sweep (each test starts with an empty store), and its id. */
  String newSweep(Integer maxConcurrent) {
    String id = "sweep-" + sweeps++;
    aSweep(id, maxConcurrent);
    return id;
  }

  Job reload(String id) {
    return store().find(id).orElseThrow();
  }

  // --- submitting --------------------------------------------------------------------------------

  @Test
  void a_submitted_job_is_queued_for_its_first_attempt_with_no_attempt_yet() {
    Job job = aQueuedJob().spec(s -> s.labels(Map.of("team", "vision"))).in(store());

    assertThat(job.state()).isEqualTo(JobState.QUEUED);
    assertThat(job.attempt()).isEqualTo(1);
    assertThat(job.attempts()).isEmpty();
    assertThat(job.labels()).isEqualTo(Map.of("team", "vision"));
    assertThat(job.createdAt()).isEqualTo(T0);
    assertThat(job.queuedAt()).isEqualTo(T0);
    assertThat(store().find("no-such-job")).isEmpty();
  }

  @Test
  void a_job_keeps_its_cores_and_host_memory_and_one_that_asked_for_none_has_one_core() {
    Job asked = aQueuedJob().spec(s -> s.host(6, 12L << 30)).in(store());
    Job plain = aQueuedJob().in(store());

    assertThat(reload(asked.id()).host()).isEqualTo(new HostResources(6, 12L << 30));
    assertThat(reload(asked.id()).requestedMemoryBytes()).isEqualTo(12L << 30);
    assertThat(reload(asked.id()).spec()).isEqualTo(asked.spec());
    assertThat(reload(plain.id()).host()).isEqualTo(HostResources.ONE_CORE);
  }

  @Test
  void a_job_keeps_whether_and_how_it_may_be_preempted_and_its_timeout_signal() {
    Job asked =
        aQueuedJob()
            .spec(
                s ->
                    s.preemption(new Preemption(true, Duration.ofSeconds(20), StopSignal.USR2))
                        .timeout(Duration.ofHours(1))
                        .timeoutSignal(new TimeoutSignal(StopSignal.USR1, Duration.ofMinutes(5))))
            .in(store());
    Job plain = aQueuedJob().in(store());

    assertThat(reload(asked.id()).preemption())
        .isEqualTo(new Preemption(true, Duration.ofSeconds(20), StopSignal.USR2));
    assertThat(reload(asked.id()).timeoutSignal())
        .contains(new TimeoutSignal(StopSignal.USR1, Duration.ofMinutes(5)));
    assertThat(reload(asked.id()).spec()).isEqualTo(asked.spec());
    assertThat(reload(plain.id()).preemption()).isEqualTo(Preemption.NONE);
    assertThat(reload(plain.id()).requeues()).isZero();
  }

  @Test
  void the_queue_head_says_which_jobs_may_be_preempted() {
    Job preemptible =
        aQueuedJob()
            .spec(s -> s.preemption(new Preemption(true, Duration.ofSeconds(20), StopSignal.TERM)))
            .in(store());
    Job plain = aQueuedJob().in(store());

    assertThat(store().queueHead(10, 0).cpuOnly())
        .extracting(QueuedJob::id, QueuedJob::preemptible)
        .containsExactly(tuple(preemptible.id(), true), tuple(plain.id(), false));
  }

  @Test
  void a_preemption_is_stored_once_for_a_waiting_job_and_a_victim_is_preempted_once() {
    Job victim = aRunningJob().ownedBy("alice").on("node-1").in(store());
    Job other = aRunningJob().ownedBy("alice").on("node-1").in(store());
    Job waiting = aQueuedJob().ownedBy("bob").in(store());
    Job another = aQueuedJob().ownedBy("carol").in(store());

    assertThat(store().preemptFor(waiting.id(), "node-1", Map.of(victim.id(), 1))).isTrue();
    // Not again for the same waiting job (another node), nor the same victim for another job.
    assertThat(store().preemptFor(waiting.id(), "node-2", Map.of(other.id(), 1))).isFalse();
    assertThat(store().preemptFor(another.id(), "node-1", Map.of(victim.id(), 1))).isFalse();
    assertThat(reload(other.id()).preemptReason()).isEmpty();
    assertThat(reload(another.id()).heldOn()).isNull();
    assertThat(reload(waiting.id()).heldOn()).isEqualTo("node-1");
    assertThat(reload(victim.id()).preemptReason()).contains(PreemptReason.FAIR_SHARE);
    assertThat(reload(victim.id()).preemptedFor()).isEqualTo(waiting.id());

    // Its end, whatever its exit code, requeues it without using up an attempt.
    store().endAttempt(new AttemptEnd(victim.id(), 1, AttemptOutcome.succeeded(), 0, T0)).join();
    Job requeued = reload(victim.id());
    assertThat(requeued.state()).isEqualTo(JobState.QUEUED);
    assertThat(requeued.attempt()).isEqualTo(2);
    assertThat(requeued.requeues()).isEqualTo(1);
    assertThat(requeued.preemptReason()).isEmpty();
    assertThat(requeued.attempts().get(0).outcome()).isEqualTo(JobState.PREEMPTED);
    assertThat(requeued.attempts().get(0).preemptedFor()).isEqualTo(waiting.id());
  }

  @Test
  void one_owner_cannot_store_two_jobs_with_one_key_but_two_owners_can() {
    Job first = aQueuedJob().idempotencyKey("nightly").in(store());

    assertThatThrownBy(() -> aQueuedJob().idempotencyKey("nightly").in(store()))
        .isInstanceOf(IdempotencyKeyTakenException.class);
    Job bobs = aQueuedJob().ownedBy("bob").idempotencyKey("nightly").in(store());

    assertThat(store().findByKey("alice", "nightly")).map(Job::id).contains(first.id());
    assertThat(store().findByKey("bob", "nightly")).map(Job::id).contains(bobs.id());
    assertThat(store().findByKey("alice", "weekly")).isEmpty();
    assertThat(store().countByState().get(JobState.QUEUED)).isEqualTo(2);
  }

  @Test
  void jobs_without_a_key_never_collide() {
    for (int i = 0; i < 3; i++) {
      aQueuedJob().in(store());
    }

    assertThat(store().countByState().get(JobState.QUEUED)).isEqualTo(3);
  }

  @Test
  void a_repeated_submission_returns_the_first_job() {
    Submission first = service().submit(ALICE, aSpec().build(), "nightly");
    Submission again = service().submit(ALICE, aSpec().build(), "nightly");

    assertThat(first.created()).isTrue();
    assertThat(again.created()).isFalse();
    assertThat(again.job().id()).isEqualTo(first.job().id());
  }

  @Test
  void simultaneous_submissions_with_one_key_create_exactly_one_job() throws Exception {
    JobService service = service();
    List<Outcome<Submission>> outcomes =
        race(6, i -> service.submit(ALICE, aSpec().build(), "same-key"));

    assertThat(outcomes).allSatisfy(o -> assertThat(o.failure()).isNull());
    assertThat(outcomes).filteredOn(o -> o.value().created()).hasSize(1);
    assertThat(outcomes)
        .extracting(o -> o.value().job().id())
        .containsOnly(outcomes.get(0).value().job().id());
    assertThat(store().countByState().get(JobState.QUEUED)).isEqualTo(1);
  }

  // --- the queue ---------------------------------------------------------------------------------

  @Test
  void its_head_is_queued_jobs_by_priority_then_submission_order() {
    Job low = aQueuedJob().priority(0).in(store());
    Job highFirst = aQueuedJob().priority(5).in(store());
    Job highSecond = aQueuedJob().priority(5).in(store());
    aRunningJob().priority(10).in(store());
    Job lowest = aQueuedJob().priority(-1).in(store());
    aJobCancelledWhileQueued().priority(10).in(store());

    assertThat(store().queueHead(3, 0).cpuOnly())
        .extracting(QueuedJob::id)
        .containsExactly(highFirst.id(), highSecond.id(), low.id());
    assertThat(store().queueHead(10, 0).cpuOnly())
        .extracting(QueuedJob::id)
        .containsExactly(highFirst.id(), highSecond.id(), low.id(), lowest.id());
  }

  @Test
  void a_held_job_is_in_no_queue_head_until_released_and_an_unmet_one_is_cancelled_naming_why() {
    Job first = aQueuedJob().in(store());
    List<Dependency> onFirst = List.of(Dependency.onJob(first.id(), DependencyCondition.AFTEROK));
    Job held = service().submit(ALICE, aSpec().priority(10).build(), null, onFirst, true).job();
    Job heldGpu =
        service().submit(ALICE, aSpec().gpus(1).priority(10).build(), null, onFirst, true).job();
    Job other = aQueuedJob().in(store());

    assertThat(store().find(held.id()).orElseThrow().held()).isTrue();
    assertThat(store().find(held.id()).orElseThrow().dependsOn()).isEqualTo(onFirst);
    assertThat(store().queueHead(10, 10).cpuOnly())
        .extracting(QueuedJob::id)
        .containsExactly(first.id(), other.id());
    assertThat(store().queueHead(10, 10).gpu()).isEmpty();

    assertThat(service().releaseHeld(held.id())).isTrue();
    assertThat(service().releaseHeld(held.id())).as("released once").isFalse();
    assertThat(store().queueHead(10, 10).cpuOnly())
        .extracting(QueuedJob::id)
        .containsExactly(held.id(), first.id(), other.id());

    assertThat(service().cancelUnmet(heldGpu.id(), "dependency afterok on job x ...")).isTrue();
    Job cancelled = store().find(heldGpu.id()).orElseThrow();
    assertThat(cancelled.state()).isEqualTo(JobState.CANCELLED);
    assertThat(cancelled.failureMessage()).isEqualTo("dependency afterok on job x ...");
    assertThat(cancelled.finishedAt()).isEqualTo(T0);
    assertThat(service().cancelUnmet(heldGpu.id(), "again")).isFalse();
    assertThat(service().cancelUnmet(other.id(), "not held")).isFalse();
    assertThat(store().find(other.id()).orElseThrow().state()).isEqualTo(JobState.QUEUED);
  }

  @Test
  void cpu_only_and_gpu_jobs_are_read_as_two_queues_each_in_scheduling_order() {
    Job cpuLow = aQueuedJob().priority(0).in(store());
    Job gpuLow = aQueuedJob().priority(0).onAGpu().in(store());
    Job cpuHigh = aQueuedJob().priority(5).in(store());
    Job gpuHigh = aQueuedJob().priority(5).onAGpu().in(store());
    Job gpuLowSecond = aQueuedJob().priority(0).onAGpu().in(store());

    assertThat(store().queueHead(10, 0).cpuOnly())
        .extracting(QueuedJob::id)
        .containsExactly(cpuHigh.id(), cpuLow.id());
    assertThat(store().queueHead(10, 0).gpu()).isEmpty();
    assertThat(store().queueHead(0, 10).gpu())
        .extracting(QueuedJob::id)
        .containsExactly(gpuHigh.id(), gpuLow.id(), gpuLowSecond.id());
    assertThat(store().queueHead(0, 2).gpu())
        .extracting(QueuedJob::id)
        .containsExactly(gpuHigh.id(), gpuLow.id());
  }

  @Test
  void a_queue_head_carries_each_jobs_cores_and_host_memory() {
    Job wide = aQueuedJob().spec(s -> s.host(4, 2L << 30)).in(store());
    Job plain = aQueuedJob().onAGpu().in(store());

    assertThat(store().queueHead(10, 0).cpuOnly())
        .extracting(QueuedJob::id, QueuedJob::host)
        .containsExactly(tuple(wide.id(), new HostResources(4, 2L << 30)));
    assertThat(store().queueHead(0, 10).gpu())
        .extracting(QueuedJob::id, QueuedJob::host)
        .containsExactly(tuple(plain.id(), HostResources.ONE_CORE));
  }

  @Test
  void no_owners_long_queue_hides_another_owners_jobs() {
    List<String> alices = new ArrayList<>();
    for (int i = 0; i < 6; i++) {
      alices.add(aQueuedJob().ownedBy("alice").onAGpu().priority(i == 0 ? 9 : 0).in(store()).id());
    }
    Job bobs = aQueuedJob().ownedBy("bob").onAGpu().in(store());
    Job carols = aQueuedJob().ownedBy("carol").onAGpu().priority(-5).in(store());

    // Every owner's first job, then every owner's second...: equal ranks by submission.
    assertThat(store().queueHead(0, 0, 10, 4).gpu())
        .extracting(QueuedJob::id)
        .containsExactly(alices.get(0), bobs.id(), carols.id(), alices.get(1));
    assertThat(store().queueHead(0, 0, 2, 10).gpu())
        .extracting(QueuedJob::id)
        .containsExactly(alices.get(0), bobs.id(), carols.id(), alices.get(1));
    assertThat(store().queueHead(0, 0, 10, 4).gpu())
        .extracting(QueuedJob::owner)
        .containsExactly("alice", "bob", "carol", "alice");
  }

  @Test
  void an_owners_ten_thousand_queued_jobs_do_not_hide_another_owners_one() {
    queueMany(aQueuedJob().ownedBy("alice").onAGpu(), 10_000);
    Job bobs = aQueuedJob().ownedBy("bob").onAGpu().in(store());
    Job carols = aQueuedJob().ownedBy("carol").in(store());

    List<QueuedJob> gpu = store().queueHead(0, 0, 1_000, 1_000).gpu();
    assertThat(gpu).hasSize(1_000);
    assertThat(gpu.subList(0, 2)).extracting(QueuedJob::owner).containsExactly("alice", "bob");
    assertThat(gpu.get(1).id()).isEqualTo(bobs.id());
    assertThat(gpu.subList(2, 1_000)).extracting(QueuedJob::owner).containsOnly("alice");
    // CPU-only jobs are another queue: alice's GPU jobs are not in it, nor read for it.
    assertThat(store().queueHead(1_000, 0).cpuOnly())
        .extracting(QueuedJob::id)
        .containsExactly(carols.id());
  }

  @Test
  void with_more_owners_than_the_limit_those_whose_next_job_waited_longest_are_read() {
    Job carols = aQueuedJob().ownedBy("carol").onAGpu().priority(-5).at(T0).in(store());
    aQueuedJob().ownedBy("alice").onAGpu().priority(9).at(T0.plusSeconds(20)).in(store());
    Job bobs = aQueuedJob().ownedBy("bob").onAGpu().at(T0.plusSeconds(10)).in(store());

    // priority orders an owner's own jobs only: it does not decide which owners a pass reads.
    assertThat(store().queueHead(0, 0, 10, 2).gpu())
        .extracting(QueuedJob::id)
        .containsExactly(carols.id(), bobs.id());
  }

  @Test
  void what_each_owner_holds_is_counted_from_their_running_jobs() {
    PlacedGpu gpu0 = new PlacedGpu(0, "GPU-0", 3L << 30, 10L << 30);
    PlacedGpu gpu1 = new PlacedGpu(1, "GPU-1", 3L << 30, 10L << 30);
    aRunningJob()
        .ownedBy("alice")
        .spec(s -> s.gpuMemory(3L << 30).gpus(2))
        .placedAt(JobPlacement.of("node-1", List.of(gpu0, gpu1)))
        .in(store());
    aRunningJob().ownedBy("alice").spec(s -> s.host(4, 2L << 30)).in(store());
    aRunningJob()
        .ownedBy("bob")
        .spec(s -> s.gpus(1))
        .placedAt(
            JobPlacement.of("node-2", List.of(new PlacedGpu(1, "GPU-1", 9L << 30, 10L << 30))))
        .in(store());
    aQueuedJob().ownedBy("carol").onAGpu().in(store());
    aSucceededJob().ownedBy("carol").in(store());

    assertThat(store().heldByOwner())
        .containsOnlyKeys("alice", "bob")
        // alice: 3 GiB asked on each of 2 GPUs, and a CPU-only job of 4 cores and 2 GiB.
        .containsEntry(
            "alice",
            new io.gpuq.fairshare.Held(6L << 30, 0, 1, Cpus.of(5), 2L << 30, 2, 0, 6L << 30))
        .containsEntry("bob", new io.gpuq.fairshare.Held(9L << 30, 1, 0, Cpus.of(1), 0, 1, 0, 0));
  }

  @Test
  void a_fraction_of_a_core_is_stored_exactly_and_counted_as_such() {
    Job quarter = aQueuedJob().ownedBy("alice").spec(s -> s.millicores(250)).in(store());
    for (int i = 0; i < 3; i++) {
      aRunningJob().ownedBy("bob").spec(s -> s.gpus(0).millicores(100)).in(store());
    }
    aRunningJob().ownedBy("bob").spec(s -> s.gpus(0).host(2, null)).in(store());

    assertThat(store().find(quarter.id()).orElseThrow().host().cpus())
        .isEqualTo(Cpus.ofMillis(250));
    assertThat(store().queueHead(10, 0).cpuOnly())
        .extracting(q -> q.host().cpus())
        .containsExactly(Cpus.ofMillis(250));
    // Three tenths and two whole cores: 2.3, not 2 nor 2.2999.
    assertThat(store().heldByOwner().get("bob").cores()).isEqualTo(Cpus.ofMillis(2300));
  }

  @Test
  void a_submission_past_its_owners_queued_limit_is_refused_and_stores_nothing() {
    aQueuedJob().ownedBy("alice").in(store());
    aQueuedJob().ownedBy("alice").in(store());
    aRunningJob().ownedBy("alice").in(store());
    aQueuedJob().ownedBy("bob").in(store());

    assertThatThrownBy(
            () -> store().submit(new NewJob("job-past", "alice", aSpec().build(), null, T0), 2))
        .isInstanceOf(TooManyQueuedJobsException.class)
        .hasMessageContaining("you have 2 queued jobs and this adds 1");
    assertThat(store().find("job-past")).isEmpty();
    // A running job is not queued; another owner's queue is theirs.
    assertThat(store().submit(new NewJob("job-within", "alice", aSpec().build(), null, T0), 3).id())
        .isEqualTo("job-within");
  }

  @Test
  void the_queued_limit_counts_the_queue_as_jobs_move_into_and_out_of_it() {
    Job started = aQueuedJob().ownedBy("alice").in(store());
    Job cancelled = aQueuedJob().ownedBy("alice").in(store());
    aQueuedJob().ownedBy("alice").in(store());
    aRequeuedJob().ownedBy("alice").in(store());
    aRunningJob().ownedBy("alice").in(store());
    aQueuedJob().ownedBy("bob").in(store());

    store().claim(Map.of(started.id(), TWO_GPUS), T0.plusSeconds(5));
    store().cancel(cancelled.id(), T0.plusSeconds(6));

    // Queued now: the third job and the requeued one.
    assertThatThrownBy(
            () -> store().submit(new NewJob("job-past", "alice", aSpec().build(), null, T0), 2))
        .isInstanceOf(TooManyQueuedJobsException.class)
        .hasMessageContaining("you have 2 queued jobs and this adds 1");
    assertThat(store().submit(new NewJob("job-within", "alice", aSpec().build(), null, T0), 3).id())
        .isEqualTo("job-within");
  }

  @Test
  void a_claim_leaves_out_the_starts_past_their_owners_running_limit() {
    aRunningJob().ownedBy("alice").in(store());
    Job first = aQueuedJob().ownedBy("alice").in(store());
    Job second = aQueuedJob().ownedBy("alice").in(store());
    io.gpuq.fairshare.Held oneJob = new io.gpuq.fairshare.Held(0, 0, 1, Cpus.of(1), 0, 1, 0, 0);
    io.gpuq.fairshare.StartLimits limits =
        new io.gpuq.fairshare.StartLimits(
            Map.of(
                "alice",
                new io.gpuq.fairshare.Limits(
                    2, Double.POSITIVE_INFINITY, io.gpuq.fairshare.Limits.UNLIMITED, 100)),
            Map.of(
                first.id(), new io.gpuq.fairshare.StartLimits.Start("alice", oneJob),
                second.id(), new io.gpuq.fairshare.StartLimits.Start("alice", oneJob)),
            new io.gpuq.fairshare.Capacity(0, 0, 4));
    Map<String, JobPlacement> placements = new LinkedHashMap<>();
    placements.put(first.id(), JobPlacement.cpuOnly("node-1"));
    placements.put(second.id(), JobPlacement.cpuOnly("node-1"));

    // The running job and the first start make two, alice's limit: the second stays queued.
    assertThat(store().claim(placements, T0.plusSeconds(5), limits))
        .extracting(ClaimedJob::id)
        .containsExactly(first.id());
    assertThat(store().find(second.id()).orElseThrow().state()).isEqualTo(JobState.QUEUED);
  }

  @Test
  void a_requeued_job_waits_in_the_queue_from_when_its_attempt_ended() {
    Job requeued = aRequeuedJob().in(store());

    assertThat(requeued.state()).isEqualTo(JobState.QUEUED);
    assertThat(requeued.attempt()).isEqualTo(2);
    assertThat(store().queueHead(10, 0).cpuOnly())
        .singleElement()
        .satisfies(
            head -> {
              assertThat(head.id()).isEqualTo(requeued.id());
              assertThat(head.queuedAt()).isEqualTo(T0.plusSeconds(2));
            });
  }

  // --- claiming ----------------------------------------------------------------------------------

  @Test
  void a_claim_leaves_queued_the_trials_beyond_their_sweeps_max_concurrent() {
    String sweep = newSweep(2);
    Job alreadyRunning = aRunningJob().trialOf(new SweepTrial(sweep, 0, "{}")).in(store());
    Job first = aQueuedJob().trialOf(new SweepTrial(sweep, 1, "{}")).in(store());
    Job second = aQueuedJob().trialOf(new SweepTrial(sweep, 2, "{}")).in(store());
    Job ofItsOwn = aQueuedJob().in(store());
    Map<String, JobPlacement> placements = new LinkedHashMap<>();
    placements.put(first.id(), JobPlacement.cpuOnly("node-1"));
    placements.put(second.id(), JobPlacement.cpuOnly("node-1"));
    placements.put(ofItsOwn.id(), JobPlacement.cpuOnly("node-1"));

    List<ClaimedJob> claimed = store().claim(placements, T0.plusSeconds(5));

    assertThat(claimed).extracting(ClaimedJob::id).containsExactly(first.id(), ofItsOwn.id());
    assertThat(reload(second.id()).state()).isEqualTo(JobState.QUEUED);
    assertThat(reload(second.id()).attempts()).isEmpty();
    assertThat(reload(alreadyRunning.id()).state()).isEqualTo(JobState.RUNNING);
  }

  @Test
  void trials_of_a_sweep_without_a_limit_all_start() {
    String sweep = newSweep(null);
    List<String> trials = new ArrayList<>();
    for (int n = 0; n < 4; n++) {
      trials.add(aQueuedJob().trialOf(new SweepTrial(sweep, n, "{}")).in(store()).id());
    }
    Map<String, JobPlacement> placements = new LinkedHashMap<>();
    trials.forEach(id -> placements.put(id, JobPlacement.cpuOnly("node-1")));

    assertThat(store().claim(placements, T0.plusSeconds(5)))
        .extracting(ClaimedJob::id)
        .containsExactlyElementsOf(trials);
  }

  @Test
  void a_trial_starts_again_once_a_running_one_of_its_sweep_has_ended() {
    String sweep = newSweep(1);
    Job running = aRunningJob().trialOf(new SweepTrial(sweep, 0, "{}")).in(store());
    Job waiting = aQueuedJob().trialOf(new SweepTrial(sweep, 1, "{}")).in(store());
    Map<String, JobPlacement> placement = Map.of(waiting.id(), JobPlacement.cpuOnly("node-1"));

    assertThat(store().claim(placement, T0.plusSeconds(5))).isEmpty();
    store().cancel(running.id(), T0.plusSeconds(6));

    assertThat(store().claim(placement, T0.plusSeconds(7)))
        .extracting(ClaimedJob::id)
        .containsExactly(waiting.id());
  }

  @Test
  void nodes_claiming_trials_of_one_sweep_at_once_never_start_more_than_its_limit()
      throws Exception {
    for (int round = 0; round < 3; round++) {
      String sweep = newSweep(3);
      List<String> trials = new ArrayList<>();
      for (int n = 0; n < 16; n++) {
        trials.add(aQueuedJob().trialOf(new SweepTrial(sweep, n, "{}")).in(store()).id());
      }

      // Eight nodes, each placing two trials of its own.
      List<Outcome<List<ClaimedJob>>> claims =
          race(
              8,
              node -> {
                Map<String, JobPlacement> mine = new LinkedHashMap<>();
                mine.put(trials.get(2 * node), JobPlacement.cpuOnly("node-" + node));
                mine.put(trials.get(2 * node + 1), JobPlacement.cpuOnly("node-" + node));
                return store().claim(mine, T0);
              });

      assertThat(claims).allSatisfy(c -> assertThat(c.failure()).isNull());
      assertThat(claims.stream().mapToInt(c -> c.value().size()).sum()).isEqualTo(3);
      assertThat(trials.stream().filter(id -> reload(id).state() == JobState.RUNNING)).hasSize(3);
    }
  }

  @Test
  void the_queue_head_leaves_out_the_trials_of_a_full_sweep_and_says_which_sweeps_are_limited() {
    String full = newSweep(1);
    String withRoom = newSweep(3);
    aRunningJob().trialOf(new SweepTrial(full, 0, "{}")).in(store());
    aQueuedJob().priority(5).trialOf(new SweepTrial(full, 1, "{}")).in(store());
    Job roomy = aQueuedJob().priority(5).trialOf(new SweepTrial(withRoom, 0, "{}")).in(store());
    Job behind = aQueuedJob().in(store());

    QueueHead head = store().queueHead(10, 10);

    assertThat(head.cpuOnly()).extracting(QueuedJob::id).containsExactly(roomy.id(), behind.id());
    assertThat(head.cpuOnly()).extracting(QueuedJob::sweepId).containsExactly(withRoom, null);
    assertThat(head.limitedSweeps())
        .containsEntry(full, new TrialSlots(1, 1))
        .containsEntry(withRoom, new TrialSlots(3, 0));
  }

  @Test
  void a_claim_starts_the_job_and_answers_what_launching_it_needs() {
    Job job =
        aQueuedJob()
            .spec(
                s ->
                    s.command("python3", "train.py", "--lr", "3e-4")
                        .workingDir("/data/runs/r-1")
                        .env(Map.of("SEED", "7"))
                        .framework(Framework.PYTORCH)
                        .timeout(Duration.ofMinutes(90))
                        .gpuMemory(6 * GIB)
                        .host(4, 8 * GIB))
            .in(store());

    List<ClaimedJob> claimed = store().claim(Map.of(job.id(), TWO_GPUS), T0.plusSeconds(5));

    assertThat(claimed)
        .containsExactly(
            new ClaimedJob(
                job.id(),
                "alice",
                1,
                List.of("python3", "train.py", "--lr", "3e-4"),
                "/data/runs/r-1",
                Map.of("SEED", "7"),
                Framework.PYTORCH,
                Duration.ofMinutes(90),
                T0,
                T0,
                null,
                new HostResources(4, 8 * GIB),
                List.of(),
                null));
    Job read = reload(job.id());
    assertThat(read.state()).isEqualTo(JobState.RUNNING);
    assertThat(read.placement()).isEqualTo(TWO_GPUS);
    assertThat(read.node()).isEqualTo("node-1");
    assertThat(read.startedAt()).isEqualTo(T0.plusSeconds(5));
    assertThat(read.attempts())
        .singleElement()
        .satisfies(
            attempt -> {
              assertThat(attempt.attempt()).isEqualTo(1);
              assertThat(attempt.node()).isEqualTo("node-1");
              assertThat(attempt.placement()).isEqualTo(TWO_GPUS);
              assertThat(attempt.budgetBytes()).isEqualTo(6 * GIB);
              assertThat(attempt.startedAt()).isEqualTo(T0.plusSeconds(5));
              assertThat(attempt.outcome()).isNull();
            });
  }

  @Test
  void a_requeued_job_claimed_again_gets_its_second_attempt() {
    Job requeued = aRequeuedJob().on("node-2").in(store());

    ClaimedJob claimed = store().claim(Map.of(requeued.id(), TWO_GPUS), T0.plusSeconds(60)).get(0);

    assertThat(claimed.attempt()).isEqualTo(2);
    assertThat(claimed.queuedAt()).isEqualTo(T0.plusSeconds(2));
    assertThat(reload(requeued.id()).attempts())
        .satisfiesExactly(
            first -> {
              assertThat(first.node()).isEqualTo("node-2");
              assertThat(first.outcome()).isEqualTo(JobState.FAILED);
            },
            second -> {
              assertThat(second.attempt()).isEqualTo(2);
              assertThat(second.placement()).isEqualTo(TWO_GPUS);
              assertThat(second.outcome()).isNull();
            });
  }

  @Test
  void a_job_no_longer_queued_is_not_claimed_and_stays_as_it_was() {
    Job cancelled = aJobCancelledWhileQueued().in(store());
    Job running = aRunningJob().on("node-2").in(store());
    Job queued = aQueuedJob().in(store());

    List<ClaimedJob> claimed =
        service()
            .markStarted(
                Map.of(cancelled.id(), TWO_GPUS, running.id(), TWO_GPUS, queued.id(), TWO_GPUS));

    assertThat(claimed).extracting(ClaimedJob::id).containsExactly(queued.id());
    assertThat(reload(cancelled.id()).attempts()).isEmpty();
    assertThat(reload(cancelled.id()).state()).isEqualTo(JobState.CANCELLED);
    assertThat(reload(running.id()).node()).isEqualTo("node-2");
    assertThat(reload(running.id()).attempts()).singleElement();
    assertThat(events.started).containsExactly(queued.id() + "#1");
  }

  @Test
  void of_several_nodes_claiming_one_queued_job_exactly_one_starts_it() throws Exception {
    for (int round = 0; round < 5; round++) {
      String id = aQueuedJob().in(store()).id();

      List<Outcome<List<ClaimedJob>>> claims =
          race(8, i -> store().claim(Map.of(id, JobPlacement.cpuOnly("node-" + i)), T0));

      assertThat(claims).allSatisfy(c -> assertThat(c.failure()).isNull());
      List<Integer> winners = new ArrayList<>();
      for (int node = 0; node < claims.size(); node++) {
        if (!claims.get(node).value().isEmpty()) {
          winners.add(node);
        }
      }
      assertThat(winners).hasSize(1);
      Job job = reload(id);
      assertThat(job.state()).isEqualTo(JobState.RUNNING);
      assertThat(job.node()).isEqualTo("node-" + winners.get(0));
      assertThat(job.attempts()).singleElement();
    }
  }

  // --- workers' processes and ends ---------------------------------------------------------------

  @Test
  void a_worker_process_is_recorded_on_its_attempt_even_after_the_attempt_ended() {
    Job job = aSucceededJob().in(store());

    store().recordProcess(new WorkerProcess(job.id(), 1, 4242, 987L)).join();

    JobAttempt attempt = reload(job.id()).attempts().get(0);
    assertThat(attempt.pid()).isEqualTo(4242);
    assertThat(attempt.pidStartTicks()).isEqualTo(987L);
    assertThat(attempt.outcome()).isEqualTo(JobState.SUCCEEDED);
  }

  @Test
  void a_worker_process_is_recorded_with_the_cores_it_was_given_and_how_it_is_held_to_them() {
    Job running = aRunningJob().in(store());
    Job unbound = aRunningJob().in(store());

    store()
        .recordProcess(
            new WorkerProcess(running.id(), 1, 4242, 987L, new BoundCores("2-3", "cgroup")))
        .join();
    store().recordProcess(new WorkerProcess(unbound.id(), 1, 4243, 988L)).join();

    assertThat(reload(running.id()).attempts().get(0).cores())
        .isEqualTo(new BoundCores("2-3", "cgroup"));
    assertThat(reload(unbound.id()).attempts().get(0).cores()).isNull();
  }

  @Test
  void a_success_ends_the_job_and_its_attempt_with_the_exit_code_at_the_end_time() {
    Job job = aRunningJob().in(store());
    Instant ended = T0.plusSeconds(44).plusNanos(123_456_000);

    JobState after =
        store()
            .endAttempt(new AttemptEnd(job.id(), 1, AttemptOutcome.succeeded(), 0, ended))
            .join();

    Job read = reload(job.id());
    assertThat(after).isEqualTo(JobState.SUCCEEDED);
    assertThat(read.state()).isEqualTo(JobState.SUCCEEDED);
    assertThat(read.exitCode()).isZero();
    assertThat(read.finishedAt()).isEqualTo(ended);
    assertThat(read.attempts().get(0).outcome()).isEqualTo(JobState.SUCCEEDED);
    assertThat(read.attempts().get(0).exitCode()).isZero();
    assertThat(read.attempts().get(0).finishedAt()).isEqualTo(ended);
  }

  @Test
  void a_failure_with_no_attempt_left_fails_the_job_with_its_reason() {
    Job job = aFailedJob().failedWith(FailureReason.OUT_OF_MEMORY).in(store());

    assertThat(job.state()).isEqualTo(JobState.FAILED);
    assertThat(job.failureReason()).isEqualTo(FailureReason.OUT_OF_MEMORY);
    assertThat(job.exitCode()).isEqualTo(1);
    assertThat(job.finishedAt()).isEqualTo(T0.plusSeconds(2));
    assertThat(job.attempts().get(0).failureReason()).isEqualTo(FailureReason.OUT_OF_MEMORY);
  }

  @Test
  void a_memory_failure_with_attempts_left_requeues_the_job_with_a_grown_budget() {
    Job job =
        aRequeuedJob()
            .spec(s -> s.gpuMemory(4 * GIB).growth(1.5))
            .failedWith(FailureReason.OUT_OF_MEMORY)
            .placedAt(TWO_GPUS)
            .in(store());

    assertThat(job.state()).isEqualTo(JobState.QUEUED);
    assertThat(job.gpuMemoryBytes()).isEqualTo(6 * GIB);
    assertThat(job.requestedGpuMemoryBytes()).isEqualTo(4 * GIB);
    assertThat(job.node()).isNull();
    assertThat(job.placement()).isNull();
    assertThat(job.startedAt()).isNull();
  }

  @Test
  void the_end_of_an_attempt_that_is_no_longer_current_changes_nothing() {
    Job requeued = aRequeuedJob().in(store());

    JobState after =
        store()
            .endAttempt(new AttemptEnd(requeued.id(), 1, AttemptOutcome.succeeded(), 0, T0))
            .join();

    assertThat(after).isNull();
    assertThat(reload(requeued.id()).state()).isEqualTo(JobState.QUEUED);
  }

  @Test
  void an_attempt_that_ended_at_a_known_time_ends_then_not_when_its_end_is_recorded() {
    Job succeeded = aRunningJob().at(T0.minusSeconds(60)).in(store());
    Job failed = aRunningJob().at(T0.minusSeconds(60)).in(store());
    Job fromTheFuture = aRunningJob().at(T0.minusSeconds(60)).in(store());
    Instant ended = T0.minusSeconds(44).plusNanos(123_456_000);
    JobService service = service();

    service.recordAttemptEndLater(succeeded.id(), 1, AttemptOutcome.succeeded(), 0, ended).join();
    service
        .recordAttemptEndLater(
            failed.id(),
            1,
            new AttemptOutcome(FailureReason.EXIT_CODE, "exited with code 3", 3),
            0,
            ended)
        .join();
    service
        .recordAttemptEndLater(
            fromTheFuture.id(), 1, AttemptOutcome.succeeded(), 0, T0.plusSeconds(3600))
        .join();

    for (Job job : List.of(succeeded, failed)) {
      Job read = reload(job.id());
      assertThat(read.state()).as(job.id()).isIn(JobState.SUCCEEDED, JobState.FAILED);
      assertThat(read.finishedAt()).as(job.id()).isEqualTo(ended);
      assertThat(read.attempts().get(0).finishedAt()).as(job.id()).isEqualTo(ended);
    }
    // A clock that ran ahead of this node's must not end an attempt in the future.
    assertThat(reload(fromTheFuture.id()).finishedAt()).isEqualTo(T0);
    assertThat(events.endedIn)
        .containsExactlyInAnyOrder(JobState.SUCCEEDED, JobState.FAILED, JobState.SUCCEEDED);
  }

  @Test
  void the_peak_of_gpu_memory_is_kept_per_attempt_and_only_grows() {
    Job job = aRunningJob().in(store());

    store().observeGpuMemory(job.id(), 3 * GIB);
    store().observeGpuMemory(job.id(), 5 * GIB);
    store().observeGpuMemory(job.id(), 4 * GIB);

    assertThat(store().peakGpuMemoryOf(job.id(), 1)).contains(5 * GIB);
    assertThat(reload(job.id()).peakGpuMemoryBytes()).isEqualTo(5 * GIB);
    assertThat(store().peakGpuMemoryOf(job.id(), 2)).isEmpty();
    assertThat(store().peakGpuMemoryOf(aRunningJob().in(store()).id(), 1)).isEmpty();
  }

  // --- cancelling --------------------------------------------------------------------------------

  @Test
  void a_cancelled_running_job_ends_cancelled_with_its_attempt_and_no_failure_reason() {
    Job job = aRunningJob().in(store());

    JobState from = store().cancel(job.id(), T0.plusSeconds(9));

    Job read = reload(job.id());
    assertThat(from).isEqualTo(JobState.RUNNING);
    assertThat(read.state()).isEqualTo(JobState.CANCELLED);
    // Issue 34: it finishes when its worker's last process is gone, not at the cancel.
    assertThat(read.finishedAt()).isNull();
    assertThat(read.failureReason()).isNull();
    assertThat(read.attempts())
        .singleElement()
        .satisfies(
            attempt -> {
              assertThat(attempt.outcome()).isEqualTo(JobState.CANCELLED);
              assertThat(attempt.failureReason()).isNull();
              assertThat(attempt.failureMessage()).isEqualTo("cancelled by the user");
              assertThat(attempt.finishedAt()).isNull();
            });
  }

  @Test
  void a_cancelled_running_job_finishes_when_its_worker_is_gone_keeping_its_exit_code() {
    Job job = aRunningJob().in(store());
    store().cancel(job.id(), T0.plusSeconds(9));
    Instant lastProcessGone = T0.plusSeconds(12);

    JobState after =
        store()
            .endAttempt(
                new AttemptEnd(
                    job.id(), 1, new AttemptOutcome(null, "stopped", 137), 0, lastProcessGone))
            .join();

    Job read = reload(job.id());
    assertThat(after).isEqualTo(JobState.CANCELLED);
    assertThat(read.state()).isEqualTo(JobState.CANCELLED);
    assertThat(read.finishedAt()).isEqualTo(lastProcessGone);
    assertThat(read.exitCode()).isEqualTo(137);
    assertThat(read.attempts())
        .singleElement()
        .satisfies(
            attempt -> {
              assertThat(attempt.outcome()).isEqualTo(JobState.CANCELLED);
              assertThat(attempt.finishedAt()).isEqualTo(lastProcessGone);
              assertThat(attempt.exitCode()).isEqualTo(137);
            });
  }

  @Test
  void a_cancelled_queued_job_finishes_at_the_cancel() {
    Job job = aQueuedJob().in(store());

    store().cancel(job.id(), T0.plusSeconds(9));

    assertThat(reload(job.id()).finishedAt()).isEqualTo(T0.plusSeconds(9));
  }

  @Test
  void a_job_queued_again_for_a_retry_can_be_cancelled() {
    Job requeued = aRequeuedJob().in(store());

    assertThat(store().cancel(requeued.id(), T0.plusSeconds(9))).isEqualTo(JobState.QUEUED);

    Job read = reload(requeued.id());
    assertThat(read.state()).isEqualTo(JobState.CANCELLED);
    assertThat(read.attempts())
        .singleElement()
        .satisfies(a -> assertThat(a.outcome()).isEqualTo(JobState.FAILED));
  }

  @Test
  void a_finished_or_unknown_job_cannot_be_cancelled() {
    Job succeeded = aSucceededJob().in(store());

    assertThatThrownBy(() -> store().cancel(succeeded.id(), T0))
        .isInstanceOf(JobConflictException.class);
    assertThatThrownBy(() -> store().cancel("no-such-job", T0))
        .isInstanceOf(JobNotFoundException.class);
    assertThat(reload(succeeded.id()).state()).isEqualTo(JobState.SUCCEEDED);
  }

  @Test
  void the_exit_of_a_cancelled_worker_is_kept_on_the_cancelled_job() {
    Job job = aJobCancelledWhileRunning().in(store());

    JobState after =
        store()
            .endAttempt(
                new AttemptEnd(job.id(), 1, new AttemptOutcome(null, "cancelled", 143), 0, T0))
            .join();

    Job read = reload(job.id());
    assertThat(after).isEqualTo(JobState.CANCELLED);
    assertThat(read.state()).isEqualTo(JobState.CANCELLED);
    assertThat(read.exitCode()).isEqualTo(143);
    assertThat(read.attempts().get(0).exitCode()).isEqualTo(143);
    assertThat(read.attempts().get(0).outcome()).isEqualTo(JobState.CANCELLED);
  }

  @Test
  void cancels_racing_attempt_ends_leave_every_job_consistent() throws Exception {
    JobService service = service();
    for (int round = 0; round < 10; round++) {
      String id = aRunningJob().in(store()).id();

      List<Outcome<Object>> outcomes =
          race(
              2,
              i -> {
                if (i == 0) {
                  return service.cancel(ALICE, id, job -> {});
                }
                service.recordAttemptEnd(id, 1, new AttemptOutcome(null, null, 0), 16 * GIB);
                return null;
              });

      Job job = reload(id);
      Throwable cancelFailure = outcomes.get(0).failure();
      assertThat(outcomes.get(1).failure()).as("recording the end").isNull();
      if (job.state() == JobState.CANCELLED) {
        assertThat(cancelFailure).isNull();
        assertThat(job.attempts().get(0).exitCode()).as("exit code kept after cancel").isZero();
      } else {
        assertThat(job.state()).isEqualTo(JobState.SUCCEEDED);
        assertThat(cancelFailure).isInstanceOf(JobConflictException.class);
      }
    }
  }

  // --- pruning -----------------------------------------------------------------------------------

  static final String PRUNED_AT_40 =
      "stopped by the sweep's early-stopping rule (median) at step 40";

  @Test
  void a_pruned_trial_ends_pruned_with_its_attempt_saying_why() {
    Job job = aRunningJob().in(store());

    boolean pruned = store().prune(job.id(), PRUNED_AT_40, T0.plusSeconds(9));

    Job read = reload(job.id());
    assertThat(pruned).isTrue();
    assertThat(read.state()).isEqualTo(JobState.PRUNED);
    // Issue 34: it finishes when its worker's last process is gone, not at the prune.
    assertThat(read.finishedAt()).isNull();
    assertThat(read.failureReason()).isNull();
    assertThat(read.attempts())
        .singleElement()
        .satisfies(
            attempt -> {
              assertThat(attempt.outcome()).isEqualTo(JobState.PRUNED);
              assertThat(attempt.failureReason()).isNull();
              assertThat(attempt.failureMessage()).isEqualTo(PRUNED_AT_40);
              assertThat(attempt.finishedAt()).isNull();
            });
  }

  @Test
  void only_a_running_job_is_pruned_and_an_unknown_one_is_not_found() {
    Job queued = aQueuedJob().in(store());
    Job succeeded = aSucceededJob().in(store());
    Job cancelled = aJobCancelledWhileRunning().in(store());

    assertThat(store().prune(queued.id(), PRUNED_AT_40, T0)).isFalse();
    assertThat(store().prune(succeeded.id(), PRUNED_AT_40, T0)).isFalse();
    assertThat(store().prune(cancelled.id(), PRUNED_AT_40, T0)).isFalse();
    assertThatThrownBy(() -> store().prune("no-such-job", PRUNED_AT_40, T0))
        .isInstanceOf(JobNotFoundException.class);
    assertThat(reload(queued.id()).state()).isEqualTo(JobState.QUEUED);
    assertThat(reload(succeeded.id()).state()).isEqualTo(JobState.SUCCEEDED);
    assertThat(reload(cancelled.id()).state()).isEqualTo(JobState.CANCELLED);
  }

  @Test
  void the_exit_of_a_pruned_worker_is_kept_and_does_not_change_its_state_and_finishes_it() {
    Job job = aRunningJob().in(store());
    store().prune(job.id(), PRUNED_AT_40, T0.plusSeconds(9));
    Instant lastProcessGone = T0.plusSeconds(11);

    JobState after =
        store()
            .endAttempt(
                new AttemptEnd(
                    job.id(),
                    1,
                    new AttemptOutcome(FailureReason.EXIT_CODE, "x", 143),
                    0,
                    lastProcessGone))
            .join();

    Job read = reload(job.id());
    assertThat(after).isEqualTo(JobState.PRUNED);
    assertThat(read.state()).isEqualTo(JobState.PRUNED);
    assertThat(read.exitCode()).isEqualTo(143);
    assertThat(read.attempts().get(0).outcome()).isEqualTo(JobState.PRUNED);
    assertThat(read.finishedAt()).isEqualTo(lastProcessGone);
    assertThat(read.attempts().get(0).finishedAt()).isEqualTo(lastProcessGone);
  }

  @Test
  void a_pruned_job_cannot_be_cancelled_and_is_listed_and_counted_as_pruned() {
    Job job = aRunningJob().in(store());
    store().prune(job.id(), PRUNED_AT_40, T0);

    assertThatThrownBy(() -> store().cancel(job.id(), T0)).isInstanceOf(JobConflictException.class);
    assertThat(store().endedAmong(List.of(job.id()))).containsExactly(job.id());
    assertThat(store().countByState()).containsEntry(JobState.PRUNED, 1L);
    assertThat(store().page(new JobFilter(null, JobState.PRUNED, Map.of(), null, 10)).items())
        .extracting(Job::id)
        .containsExactly(job.id());
  }

  // --- metrics a run reports ---------------------------------------------------------------------

  private static ReportedPoint point(long step, Map<String, Double> values, int second) {
    return point(1, step, values, second);
  }

  private static ReportedPoint point(
      int attempt, long step, Map<String, Double> values, int second) {
    return new ReportedPoint(attempt, step, values, T0.plusSeconds(second));
  }

  private static MetricsUpdate read(
      String jobId, List<ReportedPoint> points, ReadingState next, boolean done) {
    return read(jobId, 1, points, next, done);
  }

  private static MetricsUpdate read(
      String jobId, int attempt, List<ReportedPoint> points, ReadingState next, boolean done) {
    Map<String, Double> latest = new java.util.LinkedHashMap<>();
    points.forEach(p -> latest.putAll(p.values()));
    Long step = points.isEmpty() ? null : points.get(points.size() - 1).step();
    // No point indexes: nothing is ever thinned.
    return new MetricsUpdate(
        jobId, attempt, points, List.of(), false, next, latest, step, null, null, done);
  }

  /** Its running attempt fails and it is retried: claimed again, on {@code node}. */
  private void retryOn(String jobId, int failedAttempt, String node, int second) {
    store()
        .endAttempt(
            new AttemptEnd(
                jobId,
                failedAttempt,
                new AttemptOutcome(FailureReason.EXIT_CODE, "it failed", 1),
                0,
                T0.plusSeconds(second)))
        .join();
    JobPlacement there = new JobPlacement(node, TWO_GPUS.gpus(), TWO_GPUS.memoryFraction());
    assertThat(store().claim(Map.of(jobId, there), T0.plusSeconds(second + 1))).hasSize(1);
  }

  @Test
  void a_retried_job_reads_its_new_attempts_file_from_the_start_and_keeps_each_attempts_points() {
    Job job = aRunningJob().spec(s -> s.attempts(3)).on("node-1").in(store());
    store()
        .recordMetrics(
            read(
                job.id(),
                List.of(point(0, Map.of("loss", 0.9), 1), point(40, Map.of("loss", 0.2), 2)),
                new ReadingState(4000, 40, true, 2),
                false));

    retryOn(job.id(), 1, "node-2", 10);

    assertThat(store().jobsReportingOn("node-2"))
        .singleElement()
        .satisfies(
            r -> {
              assertThat(r.attempt()).isEqualTo(2);
              assertThat(r.newAttempt()).isTrue();
              assertThat(r.cursor()).isEqualTo(ReadingState.START);
              assertThat(r.latest()).isEmpty();
              assertThat(r.value()).isNull();
              assertThat(r.best()).isNull();
            });
    assertThat(store().jobsReportingOn("node-1")).isEmpty();

    store()
        .recordMetrics(
            read(
                job.id(),
                2,
                List.of(point(2, 0, Map.of("loss", 1.1), 20)),
                new ReadingState(30, 0, false, 0),
                false));

    assertThat(store().metricsOf(job.id(), 100))
        .containsExactly(
            point(1, 0, Map.of("loss", 0.9), 1),
            point(1, 40, Map.of("loss", 0.2), 2),
            point(2, 0, Map.of("loss", 1.1), 20));
    ReportingJob reading = store().jobsReportingOn("node-2").get(0);
    assertThat(reading.newAttempt()).isFalse();
    assertThat(reading.cursor()).isEqualTo(new ReadingState(30, 0, false, 0));
    assertThat(reload(job.id()).reportedMetrics())
        .contains(new ReportedMetrics(Map.of("loss", 1.1), 0L, null, null));
  }

  @Test
  void a_read_of_an_attempt_the_job_has_left_is_dropped() {
    Job job = aRunningJob().spec(s -> s.attempts(3)).on("node-1").in(store());
    retryOn(job.id(), 1, "node-2", 10);

    // node-1 read the first attempt's file before it heard of the retry.
    store()
        .recordMetrics(
            read(
                job.id(),
                1,
                List.of(point(1, 7, Map.of("loss", 0.5), 11)),
                new ReadingState(500, 7, false, 0),
                true));

    assertThat(store().metricsOf(job.id(), 100)).isEmpty();
    assertThat(store().jobsReportingOn("node-2"))
        .singleElement()
        .satisfies(r -> assertThat(r.cursor()).isEqualTo(ReadingState.START));
    assertThat(reload(job.id()).reportedMetrics()).isEmpty();
  }

  @Test
  void a_new_attempt_that_has_read_nothing_yet_shows_no_metrics_of_the_last() {
    Job job = aRunningJob().spec(s -> s.attempts(3)).on("node-1").in(store());
    store()
        .recordMetrics(
            read(
                job.id(),
                List.of(point(5, Map.of("loss", 0.3), 1)),
                new ReadingState(90, 5, false, 0),
                false));
    retryOn(job.id(), 1, "node-1", 10);

    store().recordMetrics(read(job.id(), 2, List.of(), ReadingState.START, false));

    assertThat(reload(job.id()).reportedMetrics()).isEmpty();
    assertThat(store().jobsReportingOn("node-1").get(0).newAttempt()).isFalse();
    assertThat(store().metricsOf(job.id(), 100)).containsExactly(point(5, Map.of("loss", 0.3), 1));
  }

  @Test
  void a_retried_trials_series_holds_only_its_current_attempts_values() {
    String sweepId = "01SWEEP" + System.nanoTime() % 1_000_000_000L;
    defineSweep(new SweepObjective(sweepId, "val_loss", "minimize", null));
    Job trial =
        aRunningJob()
            .spec(s -> s.attempts(3))
            .trialOf(new SweepTrial(sweepId, 0, "{}"))
            .on("node-1")
            .in(store());
    store()
        .recordMetrics(
            read(
                trial.id(),
                List.of(point(10, Map.of("val_loss", 0.1), 1)),
                new ReadingState(40, 10, false, 0),
                false));
    retryOn(trial.id(), 1, "node-2", 10);

    assertThat(store().sweepSeries(sweepId, "val_loss"))
        .singleElement()
        .satisfies(series -> assertThat(series.values()).isEmpty());

    store()
        .recordMetrics(
            read(
                trial.id(),
                2,
                List.of(point(2, 1, Map.of("val_loss", 0.8), 20)),
                new ReadingState(20, 1, false, 0),
                false));
    assertThat(store().sweepSeries(sweepId, "val_loss").get(0).values())
        .containsExactly(new TrialSeries.Value(1, 0.8, T0.plusSeconds(20)));
  }

  @Test
  void
      a_preempted_trials_series_continues_across_attempts_and_a_resumed_step_replaces_the_earlier() {
    String sweepId = "01SWEEP" + System.nanoTime() % 1_000_000_000L;
    defineSweep(new SweepObjective(sweepId, "val_loss", "minimize", null));
    Job trial =
        aRunningJob()
            .ownedBy("alice")
            .trialOf(new SweepTrial(sweepId, 0, "{}"))
            .on("node-1")
            .in(store());
    Job bobs = aQueuedJob().ownedBy("bob").in(store());
    store()
        .recordMetrics(
            read(
                trial.id(),
                List.of(
                    point(1, Map.of("val_loss", 0.9), 1),
                    point(2, Map.of("val_loss", 0.7), 2),
                    point(3, Map.of("val_loss", 0.6), 3)),
                new ReadingState(60, 3, false, 0),
                false));
    // Preempted after step 3; its last checkpoint was at step 2.
    assertThat(store().preemptFor(bobs.id(), "node-1", Map.of(trial.id(), 1))).isTrue();
    store()
        .endAttempt(new AttemptEnd(trial.id(), 1, AttemptOutcome.succeeded(), 0, T0.plusSeconds(4)))
        .join();
    assertThat(store().sweepSeries(sweepId, "val_loss").get(0).values())
        .as("queued again, its series stands")
        .extracting(TrialSeries.Value::step)
        .containsExactly(1L, 2L, 3L);
    JobPlacement there = new JobPlacement("node-2", TWO_GPUS.gpus(), TWO_GPUS.memoryFraction());
    assertThat(store().claim(Map.of(trial.id(), there), T0.plusSeconds(5))).hasSize(1);

    store()
        .recordMetrics(
            read(
                trial.id(),
                2,
                List.of(
                    point(2, 3, Map.of("val_loss", 0.55), 6),
                    point(2, 4, Map.of("val_loss", 0.5), 7)),
                new ReadingState(40, 4, false, 0),
                false));

    assertThat(store().sweepSeries(sweepId, "val_loss").get(0).values())
        .containsExactly(
            new TrialSeries.Value(1, 0.9, T0.plusSeconds(1)),
            new TrialSeries.Value(2, 0.7, T0.plusSeconds(2)),
            new TrialSeries.Value(3, 0.55, T0.plusSeconds(6)),
            new TrialSeries.Value(4, 0.5, T0.plusSeconds(7)));
    assertThat(store().metricsOf(trial.id(), 100))
        .extracting(ReportedPoint::attempt, ReportedPoint::step)
        .containsExactly(tuple(1, 1L), tuple(1, 2L), tuple(2, 3L), tuple(2, 4L));
  }

  @Test
  void a_running_job_reports_from_the_start_of_its_file_and_reads_on_where_the_last_read_stopped() {
    Job job = aRunningJob().on("node-1").in(store());
    assertThat(store().jobsReportingOn("node-1"))
        .singleElement()
        .satisfies(
            r -> {
              assertThat(r.jobId()).isEqualTo(job.id());
              assertThat(r.ended()).isFalse();
              assertThat(r.cursor()).isEqualTo(ReadingState.START);
              assertThat(r.latest()).isEmpty();
              assertThat(r.sweep()).isNull();
            });

    store()
        .recordMetrics(
            read(
                job.id(),
                List.of(
                    point(0, Map.of("loss", 0.9), 1),
                    point(10, Map.of("loss", 0.5, "acc", 0.6), 2)),
                new ReadingState(40, 10, false, 1),
                false));
    store()
        .recordMetrics(
            read(
                job.id(),
                List.of(point(20, Map.of("loss", 0.25), 3)),
                new ReadingState(58, 20, false, 1),
                false));

    assertThat(store().metricsOf(job.id(), 100))
        .containsExactly(
            point(0, Map.of("loss", 0.9), 1),
            point(10, Map.of("loss", 0.5, "acc", 0.6), 2),
            point(20, Map.of("loss", 0.25), 3));
    assertThat(store().metricsOf(job.id(), 2))
        .extracting(ReportedPoint::step)
        .containsExactly(0L, 10L);
    ReportingJob reporting = store().jobsReportingOn("node-1").get(0);
    assertThat(reporting.cursor()).isEqualTo(new ReadingState(58, 20, false, 1));
    assertThat(reporting.latest()).containsExactly(Map.entry("loss", 0.25));
    assertThat(reload(job.id()).reportedMetrics())
        .contains(new ReportedMetrics(Map.of("loss", 0.25), 20L, null, null));
  }

  @Test
  void thinning_to_a_doubled_stride_deletes_the_points_off_it_and_keeps_the_cap_state() {
    Job job = aRunningJob().on("node-1").in(store());
    int first = MetricsCaps.FIRST_POINTS;
    List<ReportedPoint> points = new java.util.ArrayList<>();
    List<Long> indexes = new java.util.ArrayList<>();
    for (long index = first - 2; index < first + 6; index++) {
      points.add(point(index, Map.of("loss", (double) index), 1));
      indexes.add(index);
    }
    ReadingState atStride1 = new ReadingState(800, first + 5, false, 0, first + 6, 1, 0, -1, false);
    store()
        .recordMetrics(
            new MetricsUpdate(
                job.id(),
                1,
                points,
                indexes,
                false,
                atStride1,
                Map.of("loss", 1.0),
                5L,
                null,
                null,
                false));
    ReadingState atStride4 = new ReadingState(900, first + 8, false, 3, first + 9, 4, 7, 850, true);
    store()
        .recordMetrics(
            new MetricsUpdate(
                job.id(),
                1,
                List.of(point(first + 8, Map.of("loss", 8.0), 2)),
                List.of((long) first + 8),
                true,
                atStride4,
                Map.of("loss", 8.0),
                (long) first + 8,
                null,
                null,
                false));

    assertThat(store().metricsOf(job.id(), 100))
        .extracting(ReportedPoint::step)
        .containsExactly(
            (long) first - 2, (long) first - 1, (long) first, (long) first + 4, (long) first + 8);
    assertThat(store().jobsReportingOn("node-1").get(0).cursor()).isEqualTo(atStride4);
    MetricsPage page = store().metricsPage(job.id(), -1, 100, 1 << 20);
    assertThat(page.skippedLines()).isEqualTo(3);
    assertThat(page.skippedValues()).isEqualTo(7);
    assertThat(page.cut()).isTrue();
  }

  @Test
  void a_page_of_points_ends_at_its_limit_or_its_bytes_and_the_next_begins_after_it() {
    Job job = aRunningJob().on("node-1").in(store());
    List<ReportedPoint> points = new java.util.ArrayList<>();
    for (int step = 0; step < 7; step++) {
      points.add(point(step, Map.of("loss", (double) step, "a".repeat(500), 1.0), step));
    }
    store().recordMetrics(read(job.id(), points, new ReadingState(99, 6, false, 0), false));

    MetricsPage byLimit = store().metricsPage(job.id(), -1, 3, 1 << 20);
    MetricsPage next = store().metricsPage(job.id(), byLimit.nextAfter(), 3, 1 << 20);
    MetricsPage last = store().metricsPage(job.id(), next.nextAfter(), 3, 1 << 20);
    // Each point's values are over 500 bytes: 1,300 bytes hold two of them.
    MetricsPage byBytes = store().metricsPage(job.id(), -1, 100, 1_300);
    MetricsPage tiny = store().metricsPage(job.id(), -1, 100, 1);

    assertThat(byLimit.points()).extracting(ReportedPoint::step).containsExactly(0L, 1L, 2L);
    assertThat(next.points()).extracting(ReportedPoint::step).containsExactly(3L, 4L, 5L);
    assertThat(last.points()).extracting(ReportedPoint::step).containsExactly(6L);
    assertThat(last.nextAfter()).isNull();
    assertThat(byBytes.points()).extracting(ReportedPoint::step).containsExactly(0L, 1L);
    assertThat(store().metricsPage(job.id(), byBytes.nextAfter(), 100, 1_300).points())
        .extracting(ReportedPoint::step)
        .containsExactly(2L, 3L);
    assertThat(tiny.points()).as("never an empty page while points are left").hasSize(1);
    assertThat(store().metricsPage(job.id(), -1, 100, 1 << 20).points()).hasSize(7);
  }

  @Test
  void the_jobs_reporting_on_a_node_come_in_batches_by_id() {
    List<String> ids = new java.util.ArrayList<>();
    for (int i = 0; i < 5; i++) {
      ids.add(aRunningJob().on("node-1").in(store()).id());
    }
    ids.sort(java.util.Comparator.naturalOrder());

    List<ReportingJob> first = store().jobsReportingOn("node-1", null, 2);
    List<ReportingJob> second = store().jobsReportingOn("node-1", first.get(1).jobId(), 2);
    List<ReportingJob> third = store().jobsReportingOn("node-1", second.get(1).jobId(), 2);

    assertThat(first).extracting(ReportingJob::jobId).containsExactlyElementsOf(ids.subList(0, 2));
    assertThat(second).extracting(ReportingJob::jobId).containsExactlyElementsOf(ids.subList(2, 4));
    assertThat(third).extracting(ReportingJob::jobId).containsExactly(ids.get(4));
  }

  @Test
  void one_job_whose_metrics_are_not_read_to_their_end_is_found_as_the_nodes_list_has_it() {
    Job running = aRunningJob().on("node-1").in(store());
    Job queued = aQueuedJob().in(store());
    store()
        .recordMetrics(
            read(
                running.id(),
                List.of(point(4, Map.of("loss", 0.5), 1)),
                new ReadingState(20, 4, false, 0),
                false));

    assertThat(store().reportingJob(running.id()))
        .contains(store().jobsReportingOn("node-1").get(0));
    assertThat(store().reportingJob(running.id()).orElseThrow().cursor())
        .isEqualTo(new ReadingState(20, 4, false, 0));
    assertThat(store().reportingJob(queued.id())).isEmpty();

    store().recordMetrics(read(running.id(), List.of(), new ReadingState(20, 4, false, 0), true));
    assertThat(store().reportingJob(running.id())).isEmpty();
  }

  @Test
  void nan_and_infinite_values_are_kept_as_null() {
    Job job = aRunningJob().on("node-1").in(store());
    Map<String, Double> diverged = new java.util.LinkedHashMap<>();
    diverged.put("loss", Double.NaN);
    diverged.put("grad", Double.POSITIVE_INFINITY);

    store()
        .recordMetrics(
            read(
                job.id(),
                List.of(point(3, diverged, 1)),
                new ReadingState(30, 3, false, 0),
                false));

    Map<String, Double> nulls = new java.util.LinkedHashMap<>();
    nulls.put("loss", null);
    nulls.put("grad", null);
    assertThat(store().metricsOf(job.id(), 10)).containsExactly(point(3, nulls, 1));
    assertThat(reload(job.id()).reportedMetrics().orElseThrow().latest()).isEqualTo(nulls);
  }

  @Test
  void only_the_jobs_a_node_ran_whose_files_are_not_read_to_their_end_are_reporting_there() {
    Job running = aRunningJob().on("node-1").in(store());
    Job ended = aSucceededJob().on("node-1").in(store());
    Job readToItsEnd = aSucceededJob().on("node-1").in(store());
    aQueuedJob().in(store());
    aJobCancelledWhileQueued().in(store());
    aRunningJob().on("node-2").in(store());
    store().recordMetrics(read(readToItsEnd.id(), List.of(), ReadingState.START, true));

    assertThat(store().jobsReportingOn("node-1"))
        .extracting(ReportingJob::jobId, ReportingJob::ended)
        .containsExactlyInAnyOrder(
            org.assertj.core.groups.Tuple.tuple(running.id(), false),
            org.assertj.core.groups.Tuple.tuple(ended.id(), true));
    assertThat(reload(readToItsEnd.id()).reportedMetrics()).isEmpty();
  }

  @Test
  void a_trial_reports_with_its_sweeps_metric_and_rule_and_shows_its_best_value() {
    String sweepId = "01SWEEP" + System.nanoTime() % 1_000_000_000L;
    SweepObjective sweep =
        new SweepObjective(sweepId, "val_loss", "minimize", "{\"type\":\"median\"}");
    defineSweep(sweep);
    Job trial = aRunningJob().trialOf(new SweepTrial(sweepId, 0, "{}")).on("node-1").in(store());

    store()
        .recordMetrics(
            new MetricsUpdate(
                trial.id(),
                1,
                List.of(point(1, Map.of("val_loss", 0.4), 1), point(2, Map.of("val_loss", 0.7), 2)),
                List.of(),
                false,
                new ReadingState(50, 2, false, 0),
                Map.of("val_loss", 0.7),
                2L,
                0.7,
                0.4,
                false));

    ReportingJob reporting = store().jobsReportingOn("node-1").get(0);
    assertThat(reporting.sweep()).isEqualTo(sweep);
    assertThat(reporting.value()).isEqualTo(0.7);
    assertThat(reporting.best()).isEqualTo(0.4);
    assertThat(reload(trial.id()).reportedMetrics())
        .contains(new ReportedMetrics(Map.of("val_loss", 0.7), 2L, "val_loss", 0.4));
  }

  @Test
  void a_sweeps_series_has_every_trial_in_any_state_with_its_metric_in_read_order() {
    String sweepId = "01SWEEP" + System.nanoTime() % 1_000_000_000L;
    defineSweep(new SweepObjective(sweepId, "val_loss", "minimize", null));
    Job done = aSucceededJob().trialOf(new SweepTrial(sweepId, 0, "{}")).on("node-1").in(store());
    Job running = aRunningJob().trialOf(new SweepTrial(sweepId, 1, "{}")).on("node-2").in(store());
    Job queued = aQueuedJob().trialOf(new SweepTrial(sweepId, 2, "{}")).in(store());
    aRunningJob().on("node-1").in(store());
    store()
        .recordMetrics(
            read(
                done.id(),
                List.of(
                    point(1, Map.of("val_loss", 0.5), 1),
                    point(2, Map.of("other", 1.0), 2),
                    point(3, Map.of("val_loss", 0.3), 3)),
                new ReadingState(90, 3, false, 0),
                true));
    Map<String, Double> nan = new java.util.HashMap<>();
    nan.put("val_loss", Double.NaN);
    store()
        .recordMetrics(
            read(
                running.id(), List.of(point(1, nan, 4)), new ReadingState(20, 1, false, 0), false));

    List<TrialSeries> series = store().sweepSeries(sweepId, "val_loss");

    assertThat(series)
        .extracting(TrialSeries::trial, TrialSeries::jobId, TrialSeries::state)
        .containsExactly(
            org.assertj.core.groups.Tuple.tuple(0, done.id(), JobState.SUCCEEDED),
            org.assertj.core.groups.Tuple.tuple(1, running.id(), JobState.RUNNING),
            org.assertj.core.groups.Tuple.tuple(2, queued.id(), JobState.QUEUED));
    assertThat(series.get(0).values())
        .containsExactly(
            new TrialSeries.Value(1, 0.5, T0.plusSeconds(1)),
            new TrialSeries.Value(3, 0.3, T0.plusSeconds(3)));
    assertThat(series.get(1).node()).isEqualTo("node-2");
    assertThat(series.get(1).values())
        .singleElement()
        .satisfies(v -> assertThat(v.value()).isNaN());
    assertThat(series.get(2).values()).isEmpty();
  }

  // --- what a node asks of its workers' jobs -----------------------------------------------------

  @Test
  void a_worker_learns_whether_its_attempt_runs_on_was_cancelled_or_is_gone() {
    Job running = aRunningJob().on("node-1").in(store());
    Job cancelled = aJobCancelledWhileRunning().on("node-1").in(store());
    Job lostAndRequeued = aLostJob().spec(s -> s.attempts(2)).on("node-1").in(store());
    Job succeeded = aSucceededJob().on("node-1").in(store());

    assertThat(store().standingOf(running.id(), 1, "node-1")).isEqualTo(AttemptStanding.RUNS_THERE);
    assertThat(store().standingOf(running.id(), 1, "node-2")).isEqualTo(AttemptStanding.GONE);
    assertThat(store().standingOf(running.id(), 2, "node-1")).isEqualTo(AttemptStanding.GONE);
    assertThat(store().standingOf(cancelled.id(), 1, "node-1"))
        .isEqualTo(AttemptStanding.CANCELLED);
    assertThat(store().standingOf(lostAndRequeued.id(), 1, "node-1"))
        .isEqualTo(AttemptStanding.GONE);
    assertThat(store().standingOf(succeeded.id(), 1, "node-1")).isEqualTo(AttemptStanding.GONE);
    assertThat(store().standingOf("no-such-job", 1, "node-1")).isEqualTo(AttemptStanding.GONE);
  }

  @Test
  void a_worker_learns_that_its_trial_was_pruned() {
    Job pruned = aRunningJob().on("node-1").in(store());
    store().prune(pruned.id(), PRUNED_AT_40, T0);

    assertThat(store().standingOf(pruned.id(), 1, "node-1")).isEqualTo(AttemptStanding.PRUNED);
    assertThat(store().standingOf(pruned.id(), 1, "node-2")).isEqualTo(AttemptStanding.GONE);
  }

  @Test
  void a_node_finds_the_jobs_it_runs() {
    Job mine = aRunningJob().on("node-1").in(store());
    Job alsoMine = aRunningJob().on("node-1").in(store());
    aRunningJob().on("node-2").in(store());
    aSucceededJob().on("node-1").in(store());
    aQueuedJob().in(store());

    assertThat(store().runningOn("node-1"))
        .extracting(Job::id)
        .containsExactlyInAnyOrder(mine.id(), alsoMine.id());
  }

  @Test
  void a_node_finds_its_attempts_declared_lost_with_or_without_their_process() {
    Job withProcess = aRunningJob().on("node-1").in(store());
    Job withoutProcess = aRunningJob().on("node-1").in(store());
    aRunningJob().on("node-2").in(store());
    store().recordProcess(new WorkerProcess(withProcess.id(), 1, 4242, 987L)).join();

    assertThat(service().declareLostOn("node-1", "node node-1 stopped heartbeating")).isEqualTo(2);

    assertThat(store().lostAttemptsOn("node-1", T0))
        .containsExactlyInAnyOrder(
            new LostAttempt(withProcess.id(), 1, 4242L, 987L),
            new LostAttempt(withoutProcess.id(), 1, null, null));
    assertThat(store().lostAttemptsOn("node-2", T0)).isEmpty();
    assertThat(reload(withProcess.id()).state()).isEqualTo(JobState.FAILED);
    assertThat(reload(withProcess.id()).failureReason()).isEqualTo(FailureReason.LOST);
  }

  @Test
  void a_dead_nodes_jobs_still_being_stopped_finish_when_it_is_reaped() {
    Job stopping = aJobCancelledWhileRunning().on("node-1").in(store());
    Job elsewhere = aJobCancelledWhileRunning().on("node-2").in(store());

    assertThat(service().declareLostOn("node-1", "node node-1 stopped heartbeating")).isZero();

    // Issue 34: its processes went with the node; it would otherwise never finish.
    Job read = reload(stopping.id());
    assertThat(read.state()).isEqualTo(JobState.CANCELLED);
    assertThat(read.finishedAt()).isNotNull();
    assertThat(read.attempts().get(0).finishedAt()).isEqualTo(read.finishedAt());
    assertThat(read.attempts().get(0).outcome()).isEqualTo(JobState.CANCELLED);
    assertThat(reload(elsewhere.id()).finishedAt()).isNull();
  }

  @Test
  void a_node_finds_only_the_attempts_declared_lost_since_the_time_it_asks_from() {
    Job lately = aLostJob().on("node-1").in(store());
    aLostJob().on("node-1").at(T0.minus(Duration.ofDays(30))).in(store());

    assertThat(store().lostAttemptsOn("node-1", T0.minus(Duration.ofDays(7))))
        .extracting(LostAttempt::jobId)
        .containsExactly(lately.id());
  }

  @Test
  void
      a_node_finds_its_attempts_cancelled_or_pruned_while_they_ran_whose_workers_end_it_never_saw() {
    Job cancelled = aJobCancelledWhileRunning().on("node-1").in(store());
    store().recordProcess(new WorkerProcess(cancelled.id(), 1, 4242, 987L)).join();
    Job pruned = aRunningJob().on("node-1").in(store());
    store().prune(pruned.id(), PRUNED_AT_40, T0.plusSeconds(5));
    Job cancelledBeforeItsPidWasStored = aJobCancelledWhileRunning().on("node-1").in(store());
    Job exitSeen = aJobCancelledWhileRunning().on("node-1").in(store());
    store()
        .endAttempt(
            new AttemptEnd(
                exitSeen.id(), 1, new AttemptOutcome(null, "cancelled", 143), 0, T0.plusSeconds(3)))
        .join();
    aJobCancelledWhileRunning().on("node-2").in(store());
    aJobCancelledWhileQueued().in(store());
    aRunningJob().on("node-1").in(store());
    aSucceededJob().on("node-1").in(store());
    aLostJob().on("node-1").in(store());
    Instant monthAgo = T0.minus(Duration.ofDays(30));
    Job longAgo = aJobCancelledWhileRunning().on("node-1").at(monthAgo).in(store());
    // Its worker's end was recorded, without an exit code, a month ago.
    store()
        .endAttempt(
            new AttemptEnd(
                longAgo.id(),
                1,
                new AttemptOutcome(null, "cancelled", null),
                0,
                monthAgo.plusSeconds(5)))
        .join();
    // Issue 34: cancelled as long ago, its worker's end never recorded, it never finished.
    Job stillStopping = aJobCancelledWhileRunning().on("node-1").at(monthAgo).in(store());

    List<StoppedAttempt> found = store().stoppedAttemptsOn("node-1", T0);

    JobPlacement onNode1 = JobPlacement.cpuOnly("node-1");
    Instant started = T0.plusSeconds(1);
    assertThat(found)
        .containsExactlyInAnyOrder(
            new StoppedAttempt(
                cancelled.id(), 1, JobState.CANCELLED, onNode1, started, 4242L, 987L, null),
            new StoppedAttempt(pruned.id(), 1, JobState.PRUNED, onNode1, started, null, null, null),
            new StoppedAttempt(
                cancelledBeforeItsPidWasStored.id(),
                1,
                JobState.CANCELLED,
                onNode1,
                started,
                null,
                null,
                null),
            new StoppedAttempt(
                stillStopping.id(),
                1,
                JobState.CANCELLED,
                onNode1,
                monthAgo.plusSeconds(1),
                null,
                null,
                null));
    assertThat(found).extracting(StoppedAttempt::jobId).doesNotContain(exitSeen.id(), longAgo.id());
    assertThat(store().stoppedAttemptsOn("node-3", T0)).isEmpty();
    assertThat(reload(cancelled.id()).state()).isEqualTo(JobState.CANCELLED);
  }

  @Test
  void of_many_jobs_the_ended_ones_are_found_at_once() {
    Job queued = aQueuedJob().in(store());
    Job running = aRunningJob().in(store());
    Job succeeded = aSucceededJob().in(store());
    Job failed = aFailedJob().in(store());
    Job cancelled = aJobCancelledWhileQueued().in(store());
    List<String> many = new ArrayList<>();
    for (int i = 0; i < 1200; i++) {
      many.add("unknown-" + i);
    }
    many.addAll(List.of(queued.id(), running.id(), succeeded.id(), failed.id(), cancelled.id()));

    assertThat(store().endedAmong(many))
        .containsExactlyInAnyOrder(succeeded.id(), failed.id(), cancelled.id());
  }

  @Test
  void jobs_are_counted_per_state_with_zero_for_empty_states() {
    aQueuedJob().in(store());
    aQueuedJob().in(store());
    aRunningJob().in(store());
    aJobCancelledWhileQueued().in(store());

    assertThat(store().countByState())
        .containsExactlyInAnyOrderEntriesOf(
            Map.of(
                JobState.QUEUED, 2L,
                JobState.RUNNING, 1L,
                JobState.SUCCEEDED, 0L,
                JobState.FAILED, 0L,
                JobState.CANCELLED, 1L,
                JobState.PRUNED, 0L));
  }

  // --- listing -----------------------------------------------------------------------------------

  /** Seven jobs: five of alice's with and without labels, two of bob's, oldest first. */
  record Listed(Job plain, Job visionProd, Job vision, Job nlpProd, Job visionProdToo) {}

  Listed jobsOfTwoOwners() {
    Job plain = submitWith(ALICE, Map.of());
    Job visionProd = submitWith(ALICE, Map.of("team", "vision", "env", "prod"));
    submitWith(BOB, Map.of("team", "vision", "env", "prod"));
    Job vision = submitWith(ALICE, Map.of("team", "vision"));
    Job nlpProd = submitWith(ALICE, Map.of("team", "nlp", "env", "prod"));
    submitWith(BOB, Map.of());
    Job visionProdToo = submitWith(ALICE, Map.of("team", "vision", "env", "prod", "x", "1"));
    return new Listed(plain, visionProd, vision, nlpProd, visionProdToo);
  }

  @Test
  void a_submitter_sees_only_their_own_jobs_newest_first() {
    Listed l = jobsOfTwoOwners();
    assertThat(ids(service().list(ALICE, null, Map.of(), null, 50)))
        .containsExactly(
            l.visionProdToo().id(),
            l.nlpProd().id(),
            l.vision().id(),
            l.visionProd().id(),
            l.plain().id());
    assertThat(service().list(ADMIN, null, Map.of(), null, 50).items()).hasSize(7);
  }

  @Test
  void jobs_must_carry_every_label_asked_for() {
    Listed l = jobsOfTwoOwners();
    JobService service = service();
    assertThat(ids(service.list(ALICE, null, Map.of("team", "vision", "env", "prod"), null, 50)))
        .containsExactly(l.visionProdToo().id(), l.visionProd().id());
    assertThat(ids(service.list(ALICE, null, Map.of("env", "prod"), null, 50)))
        .containsExactly(l.visionProdToo().id(), l.nlpProd().id(), l.visionProd().id());
    assertThat(service.list(ADMIN, null, Map.of("team", "vision", "env", "prod"), null, 50).items())
        .hasSize(3);
    assertThat(service.list(ALICE, null, Map.of("team", "audio"), null, 50).items()).isEmpty();
  }

  @Test
  void a_state_filter_shows_only_that_state() {
    Listed l = jobsOfTwoOwners();
    service().markStarted(l.vision().id(), JobPlacement.cpuOnly("node-1"));

    assertThat(ids(service().list(ALICE, JobState.RUNNING, Map.of(), null, 50)))
        .containsExactly(l.vision().id());
    assertThat(service().list(ALICE, JobState.QUEUED, Map.of(), null, 50).items()).hasSize(4);
  }

  @Test
  void pages_continue_before_the_last_id_until_none_are_left() {
    Listed l = jobsOfTwoOwners();
    JobService service = service();
    JobPage first = service.list(ALICE, null, Map.of(), null, 2);
    JobPage second = service.list(ALICE, null, Map.of(), first.nextBeforeId(), 2);
    JobPage third = service.list(ALICE, null, Map.of(), second.nextBeforeId(), 2);

    assertThat(ids(first)).containsExactly(l.visionProdToo().id(), l.nlpProd().id());
    assertThat(first.nextBeforeId()).isEqualTo(l.nlpProd().id());
    assertThat(ids(second)).containsExactly(l.vision().id(), l.visionProd().id());
    assertThat(ids(third)).containsExactly(l.plain().id());
    assertThat(third.nextBeforeId()).isNull();
    assertThat(service.list(ALICE, null, Map.of(), null, 5).nextBeforeId())
        .as("a page that holds exactly the rest has no next page")
        .isNull();
  }

  @Test
  void a_label_filter_pages_and_combines_with_owner_and_state() {
    Listed l = jobsOfTwoOwners();
    JobService service = service();
    service.markStarted(l.visionProd().id(), JobPlacement.cpuOnly("node-1"));
    service.markStarted(l.visionProdToo().id(), JobPlacement.cpuOnly("node-1"));

    JobPage first = service.list(ALICE, null, Map.of("team", "vision"), null, 2);
    JobPage second = service.list(ALICE, null, Map.of("team", "vision"), first.nextBeforeId(), 2);
    assertThat(ids(first)).containsExactly(l.visionProdToo().id(), l.vision().id());
    assertThat(ids(second)).containsExactly(l.visionProd().id());
    assertThat(second.nextBeforeId()).isNull();
    assertThat(ids(service.list(ALICE, JobState.RUNNING, Map.of("team", "vision"), null, 50)))
        .containsExactly(l.visionProdToo().id(), l.visionProd().id());
    assertThat(service.list(ADMIN, JobState.QUEUED, Map.of("env", "prod"), null, 50).items())
        .as("bob's queued one and alice's nlp one")
        .hasSize(2);
    assertThat(
            ids(
                service.list(
                    ALICE,
                    JobState.RUNNING,
                    Map.of("env", "prod", "x", "1"),
                    l.visionProdToo().id(),
                    50)))
        .isEmpty();
  }

  private Job submitWith(Caller caller, Map<String, String> labels) {
    return aQueuedJob().ownedBy(caller.name()).spec(s -> s.labels(labels)).in(store());
  }

  private static List<String> ids(JobPage page) {
    return page.items().stream().map(Job::id).toList();
  }

  // --- racing ------------------------------------------------------------------------------------

  /** What one racer did: its value, or what it threw. */
  record Outcome<T>(T value, Throwable failure) {}

  /** Runs {@code n} tasks on their own threads, released together, and waits for all of them. */
  static <T> List<Outcome<T>> race(int n, IntFunction<T> task) throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(n);
    try {
      CountDownLatch go = new CountDownLatch(1);
      List<Future<T>> futures = new ArrayList<>();
      for (int i = 0; i < n; i++) {
        int racer = i;
        futures.add(
            pool.submit(
                () -> {
                  go.await();
                  return task.apply(racer);
                }));
      }
      go.countDown();
      List<Outcome<T>> outcomes = new ArrayList<>();
      for (Future<T> future : futures) {
        try {
          outcomes.add(new Outcome<>(future.get(60, TimeUnit.SECONDS), null));
        } catch (java.util.concurrent.ExecutionException e) {
          outcomes.add(new Outcome<>(null, e.getCause()));
        }
      }
      return outcomes;
    } finally {
      pool.shutdownNow();
    }
  }
}
