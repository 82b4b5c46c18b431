package io.gpuq.job;

/** Where a job is in its life. Only {@link JobTransition} moves a job from one state to another. */
public enum JobState {
  QUEUED,
  RUNNING,
  SUCCEEDED,
  FAILED,
  CANCELLED;

  public boolean isTerminal() {
    return this == SUCCEEDED || this == FAILED || this == CANCELLED;
  }
}
