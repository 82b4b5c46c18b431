package io.gpuq.job;

import static io.gpuq.job.JobSpecs.aSpec;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.function.UnaryOperator;

/**
 * Test-data builder for a stored job in any state, put there through the store's own moves (submit,
 * claim, end, cancel), as the application would: {@code aRunningJob().on("node-1").in(store)}. Each
 * move happens a second after the one before, from {@link #at} on.
 */
public final class JobBuilder {

  public static final Instant T0 = Instant.parse("2026-11-29T12:00:00.123456Z");

  // One generator for every test: ids stay unique, and ordered by when they were built.
  private static final JobIds IDS = new JobIds(Clock.systemUTC());

  private enum Target {
    QUEUED,
    RUNNING,
    SUCCEEDED,
    FAILED,
    REQUEUED,
    LOST,
    CANCELLED_WHILE_QUEUED,
    CANCELLED_WHILE_RUNNING;

    boolean runs() {
      return this != QUEUED && this != CANCELLED_WHILE_QUEUED;
    }
  }

  private final Target target;
  private String owner = "alice";
  private JobSpecs spec = aSpec();
  private String idempotencyKey;
  private JobPlacement placement = JobPlacement.cpuOnly("node-1");
  private Instant submittedAt = T0;
  private FailureReason failure = FailureReason.EXIT_CODE;
  private SweepTrial trial;

  private JobBuilder(Target target) {
    this.target = target;
  }

  /** Submitted, waiting for its first attempt. */
  public static JobBuilder aQueuedJob() {
    return new JobBuilder(Target.QUEUED);
  }

  /** Claimed by a node ({@link #on}): its first attempt runs there. */
  public static JobBuilder aRunningJob() {
    return new JobBuilder(Target.RUNNING);
  }

  /** Its first attempt exited with code 0. */
  public static JobBuilder aSucceededJob() {
    return new JobBuilder(Target.SUCCEEDED);
  }

  /** Its only attempt failed ({@link #failedWith}, EXIT_CODE unless told). */
  public static JobBuilder aFailedJob() {
    return new JobBuilder(Target.FAILED);
  }

  /** Its first attempt failed with attempts left: queued again for its second. */
  public static JobBuilder aRequeuedJob() {
    return new JobBuilder(Target.REQUEUED).spec(s -> s.attempts(3));
  }

  /** Its first attempt was declared LOST (its node fell silent); with no attempt left, FAILED. */
  public static JobBuilder aLostJob() {
    return new JobBuilder(Target.LOST);
  }

  /** Cancelled before it ever ran. */
  public static JobBuilder aJobCancelledWhileQueued() {
    return new JobBuilder(Target.CANCELLED_WHILE_QUEUED);
  }

  /** Cancelled while its first attempt ran (on {@link #on}). */
  public static JobBuilder aJobCancelledWhileRunning() {
    return new JobBuilder(Target.CANCELLED_WHILE_RUNNING);
  }

  public JobBuilder ownedBy(String owner) {
    this.owner = owner;
    return this;
  }

  /** Changes the spec: {@code spec(s -> s.priority(5).gpuMemory(gib))}. */
  public JobBuilder spec(UnaryOperator<JobSpecs> change) {
    this.spec = change.apply(spec);
    return this;
  }

  public JobBuilder priority(int priority) {
    return spec(s -> s.priority(priority));
  }

  /** A GPU job: half a GPU. */
  public JobBuilder onAGpu() {
    return spec(s -> s.fraction(0.5));
  }

  public JobBuilder idempotencyKey(String key) {
    this.idempotencyKey = key;
    return this;
  }

  /** The node its attempt runs (or ran) on, CPU-only. */
  public JobBuilder on(String node) {
    return placedAt(JobPlacement.cpuOnly(node));
  }

  public JobBuilder placedAt(JobPlacement placement) {
    this.placement = placement;
    return this;
  }

  /** When it is submitted; each later move comes a second after the one before. */
  public JobBuilder at(Instant submittedAt) {
    this.submittedAt = submittedAt;
    return this;
  }

  /**
   * One of a sweep's trials. In a database store the sweep's row must exist first (the jobs table
   * refers to it).
   */
  public JobBuilder trialOf(SweepTrial trial) {
    this.trial = trial;
    return this;
  }

  public JobBuilder failedWith(FailureReason reason) {
    this.failure = reason;
    return this;
  }

  /** Stores it in {@code store}, moved into its state there; the job as the store reads it back. */
  public Job in(JobStore store) {
    String id = IDS.next();
    store.submit(
        new NewJob(
            id,
            owner,
            spec.build(),
            idempotencyKey,
            trial,
            submittedAt,
            List.of(),
            false,
            List.of()));
    Instant moved = submittedAt;
    if (target == Target.CANCELLED_WHILE_QUEUED) {
      store.cancel(id, moved.plusSeconds(1));
    }
    if (target.runs()) {
      moved = moved.plusSeconds(1);
      if (store.claim(java.util.Map.of(id, placement), moved).isEmpty()) {
        throw new IllegalStateException("the store did not let job " + id + " start");
      }
    }
    Instant ended = moved.plus(Duration.ofSeconds(1));
    switch (target) {
      case SUCCEEDED -> end(store, id, AttemptOutcome.succeeded(), ended);
      case FAILED, REQUEUED ->
          end(store, id, new AttemptOutcome(failure, "it failed: " + failure, 1), ended);
      case LOST ->
          store.declareLost(id, 1, "node " + placement.node() + " fell silent", ended).join();
      case CANCELLED_WHILE_RUNNING -> store.cancel(id, ended);
      default -> {}
    }
    return store.find(id).orElseThrow();
  }

  private static void end(JobStore store, String id, AttemptOutcome outcome, Instant at) {
    store.endAttempt(new AttemptEnd(id, 1, outcome, 0, at)).join();
  }
}
