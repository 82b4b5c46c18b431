package io.gpuq.job;

import java.time.Instant;

/**
 * A job to submit: who asked for what, and when.
 *
 * @param trial the sweep and trial it belongs to; null for a job of its own
 */
public record NewJob(
    String id,
    String owner,
    JobSpec spec,
    String idempotencyKey,
    SweepTrial trial,
    Instant createdAt) {

  public NewJob(String id, String owner, JobSpec spec, String idempotencyKey, Instant createdAt) {
    this(id, owner, spec, idempotencyKey, null, createdAt);
  }

  /** The job as it is first stored: queued for its first attempt. */
  public Job job() {
    return Job.submit(id, owner, spec, idempotencyKey, trial, createdAt);
  }
}
