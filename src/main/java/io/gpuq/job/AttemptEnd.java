package io.gpuq.job;

import java.time.Instant;

/**
 * How and when one attempt of a job ended.
 *
 * @param gpuMemoryCapBytes the largest per-GPU budget a retry after a memory failure may ask for
 *     (the smallest GPU the attempt ran on); 0 for no cap
 * @param endedAt when it ended
 */
public record AttemptEnd(
    String jobId, int attempt, AttemptOutcome outcome, long gpuMemoryCapBytes, Instant endedAt) {}
