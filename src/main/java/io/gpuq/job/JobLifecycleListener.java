package io.gpuq.job;

import java.time.Instant;

/** Told of each start and end of an attempt, after it is committed (for metrics and the like). */
public interface JobLifecycleListener {

  /**
   * @param queuedAt when this attempt joined the queue (submission, or the previous attempt's end)
   * @param createdAt when the job was submitted
   */
  default void attemptStarted(
      String jobId, int attempt, Instant createdAt, Instant queuedAt, Instant startedAt) {}

  /**
   * @param jobState the job's state after this attempt: QUEUED when it will be tried again
   */
  default void attemptEnded(String jobId, int attempt, AttemptOutcome outcome, JobState jobState) {}
}
