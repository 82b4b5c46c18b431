package io.gpuq.job;

import java.util.Set;

/** What {@link JobStore#stoppedAttemptsOn} finds, the same for every store. */
public final class StoppedAttempts {

  /** The ends the store gives an attempt while its worker runs on: the worker must follow. */
  public static final Set<JobState> STATES = Set.of(JobState.CANCELLED, JobState.PRUNED);

  private StoppedAttempts() {}

  public static StoppedAttempt of(Job job, JobAttempt attempt) {
    return new StoppedAttempt(
        job.id(),
        attempt.attempt(),
        job.state(),
        attempt.placement(),
        attempt.startedAt(),
        attempt.pid(),
        attempt.pidStartTicks(),
        job.finishedAt());
  }
}
