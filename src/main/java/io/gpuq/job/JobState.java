package io.gpuq.job;

/** Where a job is in its life. Only {@link JobTransition} moves a job from one state to another. */
public enum JobState {
  QUEUED,
  RUNNING,
  SUCCEEDED,
  FAILED,
  CANCELLED,
  /** A sweep's trial stopped by its sweep's early-stopping rule (Optuna's word). */
  PRUNED;

  public boolean isTerminal() {
    return this == SUCCEEDED || this == FAILED || this == CANCELLED || this == PRUNED;
  }
}
