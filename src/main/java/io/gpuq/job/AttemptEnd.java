package io.gpuq.job;

import java.time.Instant;

/**
 * How and when one attempt of a job ended.
 *
 * @param gpuMemoryCapBytes the largest per-GPU budget a retry after a memory failure may ask for
 *     (the smallest GPU the attempt ran on); 0 for no cap
 * @param endedAt when it ended
 * @param requeueExitCode the exit code that asks for a requeue ({@code GPUQ_REQUEUE_EXIT_CODE});
 *     null where none is honoured
 * @param maxRequeues how often a job may requeue itself so ({@code gpuq.preemption.max-requeues})
 */
public record AttemptEnd(
    String jobId,
    int attempt,
    AttemptOutcome outcome,
    long gpuMemoryCapBytes,
    Instant endedAt,
    Integer requeueExitCode,
    int maxRequeues) {

  /** An end that honours no requeue exit code. */
  public AttemptEnd(
      String jobId, int attempt, AttemptOutcome outcome, long gpuMemoryCapBytes, Instant endedAt) {
    this(jobId, attempt, outcome, gpuMemoryCapBytes, endedAt, null, 0);
  }

  /** The exit code a job exits with to go back to the queue (issue 35, docs/jobs.md). */
  public static final int REQUEUE_EXIT_CODE = 85;
}
