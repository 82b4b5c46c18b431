package io.gpuq.job;

import static io.gpuq.job.JobState.CANCELLED;
import static io.gpuq.job.JobState.FAILED;
import static io.gpuq.job.JobState.PRUNED;
import static io.gpuq.job.JobState.QUEUED;
import static io.gpuq.job.JobState.RUNNING;
import static io.gpuq.job.JobState.SUCCEEDED;

import java.util.EnumMap;
import java.util.EnumSet;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * The job lifecycle: every allowed move between states, and what each one sets and clears on the
 * job and on its attempt, in one place. The entity ({@link Job}) and the SQL that moves a job
 * without loading it both apply these descriptions; neither spells the fields out again.
 *
 * <pre>
 * QUEUED --start--> RUNNING --succeed--> SUCCEEDED
 *                   RUNNING --fail-----> FAILED
 *                   RUNNING --requeueForRetry--> QUEUED (attempt + 1)
 *                   RUNNING --requeueAfterPreemption--> QUEUED (attempt + 1, outcome PREEMPTED)
 * QUEUED --cancel--> CANCELLED
 * QUEUED --cancelUnmet--> CANCELLED (a dependency can no longer be met)
 *                   RUNNING --cancelRunning--> CANCELLED (finishedAt once its last process is gone)
 *                   RUNNING --prune----> PRUNED (the same)
 * </pre>
 *
 * <p>A cancel or a prune is a stored fact the node running the worker acts on; the job is CANCELLED
 * (PRUNED) from then on, but it finishes, and its place is freed, only when its last process is
 * gone (issue 34): {@link Job#endAttempt} then writes {@code finishedAt} on the job and its
 * attempt, the moment its place was freed, as for any other end.
 */
public enum JobTransition {
  START(
      EnumSet.of(QUEUED),
      RUNNING,
      jobWrites(
          JobField.PLACEMENT, Value.PLACEMENT,
          JobField.NODE, Value.PLACEMENT_NODE,
          JobField.STARTED_AT, Value.NOW,
          JobField.HELD_ON, Value.NONE,
          JobField.FAILURE_REASON, Value.NONE,
          JobField.FAILURE_MESSAGE, Value.NONE,
          JobField.EXIT_CODE, Value.NONE),
      new AttemptMove(AttemptEffect.OPENS, null)),
  SUCCEED(
      EnumSet.of(RUNNING),
      SUCCEEDED,
      jobWrites(
          JobField.EXIT_CODE, Value.EXIT_CODE,
          JobField.FINISHED_AT, Value.NOW),
      new AttemptMove(AttemptEffect.ENDS, SUCCEEDED)),
  FAIL(
      EnumSet.of(RUNNING),
      FAILED,
      jobWrites(
          JobField.FAILURE_REASON, Value.REASON,
          JobField.FAILURE_MESSAGE, Value.MESSAGE,
          JobField.EXIT_CODE, Value.EXIT_CODE,
          JobField.FINISHED_AT, Value.NOW),
      new AttemptMove(AttemptEffect.ENDS, FAILED)),
  /** The budget also grows after a memory failure: a computation, left to {@link Job}. */
  REQUEUE_FOR_RETRY(
      EnumSet.of(RUNNING), QUEUED, requeueWrites(), new AttemptMove(AttemptEffect.ENDS, FAILED)),
  /**
   * A preempted attempt ended (issue 35), whatever its exit code: the job goes back to the queue,
   * where its submission keeps its place among its owner's jobs. It does not count against {@code
   * retry.maxAttempts}: {@code requeues} grows with the attempt number.
   */
  REQUEUE_AFTER_PREEMPTION(
      EnumSet.of(RUNNING),
      QUEUED,
      requeueWrites(
          JobField.REQUEUES, Value.INCREMENTED,
          JobField.PREEMPT_REASON, Value.NONE,
          JobField.PREEMPTED_FOR, Value.NONE),
      new AttemptMove(AttemptEffect.ENDS, JobState.PREEMPTED)),
  /** A queued job cancelled: it has no process, so it finishes at once. */
  CANCEL(
      EnumSet.of(QUEUED),
      CANCELLED,
      jobWrites(JobField.FINISHED_AT, Value.NOW),
      new AttemptMove(AttemptEffect.ENDS_IF_OPEN, CANCELLED)),
  /**
   * A queued job that waited for a dependency which can no longer be met (issue 37): cancelled at
   * once, as a user's cancel would, with the dependency named in its failure message.
   */
  CANCEL_UNMET(
      EnumSet.of(QUEUED),
      CANCELLED,
      jobWrites(
          JobField.FAILURE_MESSAGE, Value.MESSAGE,
          JobField.FINISHED_AT, Value.NOW),
      new AttemptMove(AttemptEffect.ENDS_IF_OPEN, CANCELLED)),
  /**
   * A running job cancelled: CANCELLED at once, its attempt's outcome too, but neither finishes
   * before its worker's last process is gone (issue 34; {@link #STOPPING}).
   */
  CANCEL_RUNNING(
      EnumSet.of(RUNNING),
      CANCELLED,
      Map.of(),
      new AttemptMove(AttemptEffect.ENDS_IF_OPEN, CANCELLED, true)),
  /**
   * The sweep's early-stopping rule stopped a running trial. Like a cancel, a stored fact the node
   * running its worker acts on; only a running trial has values a rule can judge. Why (the rule and
   * the step) is the job's failure message too, where a user looks first.
   */
  PRUNE(
      EnumSet.of(RUNNING),
      PRUNED,
      jobWrites(JobField.FAILURE_MESSAGE, Value.MESSAGE),
      new AttemptMove(AttemptEffect.ENDS, PRUNED, true));

  /** The columns of a job that transitions write, besides its state. */
  public enum JobField {
    ATTEMPT,
    PLACEMENT,
    NODE,
    STARTED_AT,
    QUEUED_AT,
    FINISHED_AT,
    FAILURE_REASON,
    FAILURE_MESSAGE,
    EXIT_CODE,
    PEAK_GPU_MEMORY_BYTES,
    /** Its attempts that ended PREEMPTED (issue 35). */
    REQUEUES,
    /** Why its running attempt is being preempted; null while it is not (issue 35). */
    PREEMPT_REASON,
    /** The waiting job its preemption serves; null for none (issue 35). */
    PREEMPTED_FOR,
    /** The node that preempts jobs to start this queued job there; null for none (issue 35). */
    HELD_ON;

    /** Its column: its name in lower case. */
    public String column() {
      return name().toLowerCase(Locale.ROOT);
    }
  }

  /** The columns of an attempt that transitions write. */
  public enum AttemptField {
    NODE,
    PLACEMENT,
    BUDGET_BYTES,
    STARTED_AT,
    OUTCOME,
    FAILURE_REASON,
    FAILURE_MESSAGE,
    EXIT_CODE,
    FINISHED_AT;

    /** Its column: its name in lower case. */
    public String column() {
      return name().toLowerCase(Locale.ROOT);
    }
  }

  /** Where a written value comes from: the move's own {@link Change}, or nowhere (cleared). */
  public enum Value {
    /** Cleared: null. */
    NONE,
    NOW,
    PLACEMENT,
    PLACEMENT_NODE,
    /** The budget per GPU of the placement. */
    BUDGET,
    EXIT_CODE,
    REASON,
    MESSAGE,
    /** The attempt's outcome this transition states. */
    ATTEMPT_OUTCOME,
    /** The job's attempt number plus one. */
    NEXT_ATTEMPT,
    /** The column's own value plus one. */
    INCREMENTED
  }

  /** What a transition does to the job's current attempt. */
  public enum AttemptEffect {
    /** Adds a new attempt, written with {@link #OPENING}. */
    OPENS,
    /** Closes the current one, written with {@link #ENDING}. */
    ENDS,
    /** Closes the current one if it is still open: a queued job has none open. */
    ENDS_IF_OPEN
  }

  /** What opening an attempt writes on it. */
  public static final Map<AttemptField, Value> OPENING =
      attemptWrites(
          AttemptField.NODE, Value.PLACEMENT_NODE,
          AttemptField.PLACEMENT, Value.PLACEMENT,
          AttemptField.BUDGET_BYTES, Value.BUDGET,
          AttemptField.STARTED_AT, Value.NOW);

  /** What ending an attempt writes on it. */
  public static final Map<AttemptField, Value> ENDING =
      attemptWrites(
          AttemptField.OUTCOME, Value.ATTEMPT_OUTCOME,
          AttemptField.FAILURE_REASON, Value.REASON,
          AttemptField.FAILURE_MESSAGE, Value.MESSAGE,
          AttemptField.EXIT_CODE, Value.EXIT_CODE,
          AttemptField.FINISHED_AT, Value.NOW);

  /**
   * What stopping a running attempt writes on it: its outcome, as {@link #ENDING} does, but not its
   * end, which comes when its worker's last process is gone.
   */
  public static final Map<AttemptField, Value> STOPPING =
      attemptWrites(
          AttemptField.OUTCOME, Value.ATTEMPT_OUTCOME,
          AttemptField.FAILURE_REASON, Value.REASON,
          AttemptField.FAILURE_MESSAGE, Value.MESSAGE,
          AttemptField.EXIT_CODE, Value.EXIT_CODE);

  /**
   * What a transition does to the job's current attempt, and the outcome it gives one it ends.
   *
   * @param stops whether it stops a worker that still runs: the attempt ends without its end
   *     ({@link #STOPPING})
   */
  private record AttemptMove(AttemptEffect effect, JobState outcome, boolean stops) {
    AttemptMove(AttemptEffect effect, JobState outcome) {
      this(effect, outcome, false);
    }
  }

  private final Set<JobState> from;
  private final JobState to;
  private final Map<JobField, Value> jobWrites;
  private final AttemptMove attempt;

  JobTransition(
      Set<JobState> from, JobState to, Map<JobField, Value> jobWrites, AttemptMove attempt) {
    this.from = from;
    this.to = to;
    this.jobWrites = jobWrites;
    this.attempt = attempt;
  }

  /** The states this transition may leave. */
  public Set<JobState> sources() {
    return Set.copyOf(from);
  }

  public boolean isAllowedFrom(JobState state) {
    return from.contains(state);
  }

  public JobState target() {
    return to;
  }

  /** What it writes on the job besides its state, in column order (every other field stays). */
  public Map<JobField, Value> jobWrites() {
    return jobWrites;
  }

  public AttemptEffect attemptEffect() {
    return attempt.effect();
  }

  /** What it writes on the attempt it opens or ends. */
  public Map<AttemptField, Value> attemptWrites() {
    if (attempt.effect() == AttemptEffect.OPENS) {
      return OPENING;
    }
    return attempt.stops() ? STOPPING : ENDING;
  }

  /**
   * Whether it stops a worker that runs on: the job's and the attempt's {@code finishedAt} wait for
   * its last process ({@link Job#endAttempt}).
   */
  public boolean stopsWorker() {
    return attempt.stops();
  }

  /** The outcome it gives the attempt it ends; null for {@link #START}. */
  public JobState attemptOutcome() {
    return attempt.outcome();
  }

  /**
   * The state a job in {@code current} reaches through this transition.
   *
   * @throws IllegalTransitionException when the lifecycle does not allow it: always a bug of the
   *     caller, which must look before it leaps (for example with {@link #isAllowedFrom}).
   */
  public JobState applyTo(String jobId, JobState current) {
    if (!isAllowedFrom(current)) {
      throw new IllegalTransitionException(jobId, current, this);
    }
    return to;
  }

  /**
   * The values one move of a job brings: what {@link Value} names, resolved.
   *
   * @param placement for {@link #START}, else null
   * @param exitCode null when nobody saw it
   * @param reason null unless it failed
   * @param message why it failed or was cancelled; null otherwise
   */
  public record Change(
      JobPlacement placement,
      java.time.Instant now,
      Integer exitCode,
      FailureReason reason,
      String message) {

    public static Change start(JobPlacement placement, java.time.Instant now) {
      return new Change(placement, now, null, null, null);
    }

    public static Change end(
        Integer exitCode, FailureReason reason, String message, java.time.Instant now) {
      return new Change(null, now, exitCode, reason, message);
    }

    /** The value {@code value} stands for in {@code transition} of a job now in {@code attempt}. */
    public Object valueOf(Value value, JobTransition transition, int attempt) {
      return switch (value) {
        case NONE -> null;
        case NOW -> now;
        case PLACEMENT -> placement;
        case PLACEMENT_NODE -> placement.node();
        case BUDGET -> placement.budgetBytesPerGpu();
        case EXIT_CODE -> exitCode;
        case REASON -> reason;
        case MESSAGE -> message;
        case ATTEMPT_OUTCOME -> transition.attemptOutcome();
        case NEXT_ATTEMPT -> attempt + 1;
        case INCREMENTED ->
            throw new IllegalArgumentException("an increment is the column's own, not the move's");
      };
    }
  }

  private static Map<JobField, Value> jobWrites(Object... fieldsAndValues) {
    return writes(JobField.class, fieldsAndValues);
  }

  /**
   * What every way back to the queue writes on the job, and {@code more}: the next attempt, no
   * placement, queued now, and no peak of an attempt that has not run. One set for both requeues,
   * so that they cannot drift apart.
   */
  private static Map<JobField, Value> requeueWrites(Object... more) {
    Object[] back = {
      JobField.ATTEMPT, Value.NEXT_ATTEMPT,
      JobField.PLACEMENT, Value.NONE,
      JobField.NODE, Value.NONE,
      JobField.STARTED_AT, Value.NONE,
      JobField.QUEUED_AT, Value.NOW,
      JobField.PEAK_GPU_MEMORY_BYTES, Value.NONE
    };
    Object[] all = java.util.Arrays.copyOf(back, back.length + more.length);
    System.arraycopy(more, 0, all, back.length, more.length);
    return jobWrites(all);
  }

  private static Map<AttemptField, Value> attemptWrites(Object... fieldsAndValues) {
    return writes(AttemptField.class, fieldsAndValues);
  }

  private static <F extends Enum<F>> Map<F, Value> writes(Class<F> type, Object... pairs) {
    EnumMap<F, Value> writes = new EnumMap<>(type);
    for (int i = 0; i < pairs.length; i += 2) {
      writes.put(type.cast(pairs[i]), (Value) pairs[i + 1]);
    }
    return java.util.Collections.unmodifiableMap(writes);
  }
}
