package io.gpuq.job;

import static io.gpuq.job.JobState.CANCELLED;
import static io.gpuq.job.JobState.FAILED;
import static io.gpuq.job.JobState.QUEUED;
import static io.gpuq.job.JobState.RUNNING;
import static io.gpuq.job.JobState.SUCCEEDED;

import java.util.EnumSet;
import java.util.Set;

/**
 * The job lifecycle: every allowed move between states, in one place.
 *
 * <pre>
 * QUEUED --start--> RUNNING --succeed--> SUCCEEDED
 *                   RUNNING --fail-----> FAILED
 *                   RUNNING --requeueForRetry--> QUEUED (attempt + 1)
 * QUEUED|RUNNING --cancel--> CANCELLED
 * </pre>
 */
public enum JobTransition {
  START(EnumSet.of(QUEUED), RUNNING),
  SUCCEED(EnumSet.of(RUNNING), SUCCEEDED),
  FAIL(EnumSet.of(RUNNING), FAILED),
  REQUEUE_FOR_RETRY(EnumSet.of(RUNNING), QUEUED),
  CANCEL(EnumSet.of(QUEUED, RUNNING), CANCELLED);

  private final Set<JobState> from;
  private final JobState to;

  JobTransition(Set<JobState> from, JobState to) {
    this.from = from;
    this.to = to;
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
}
