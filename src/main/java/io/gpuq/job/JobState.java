package io.gpuq.job;

/** Where a job is in its life. Only {@link JobTransition} moves a job from one state to another. */
public enum JobState {
  QUEUED,
  RUNNING,
  SUCCEEDED,
  FAILED,
  CANCELLED,
  /** A sweep's trial stopped by its sweep's early-stopping rule (Optuna's word). */
  PRUNED,
  /**
   * Only an attempt's outcome, never a job's state (issue 35): the attempt was preempted (for fair
   * share, by its own requeue exit code or by a person) and its job went back to the queue.
   */
  PREEMPTED;

  private static final JobState[] OF_JOBS = {QUEUED, RUNNING, SUCCEEDED, FAILED, CANCELLED, PRUNED};

  /**
   * The states a job can be in, in order: every one but {@link #PREEMPTED}, which only an attempt
   * ends in. What counts, gauges and listings go through.
   */
  public static JobState[] ofJobs() {
    return OF_JOBS.clone();
  }

  /** Whether a job can be in it: every state but {@link #PREEMPTED}. */
  public boolean isJobState() {
    return this != PREEMPTED;
  }

  public boolean isTerminal() {
    return this == SUCCEEDED || this == FAILED || this == CANCELLED || this == PRUNED;
  }
}
