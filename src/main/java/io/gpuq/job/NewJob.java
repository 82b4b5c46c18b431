package io.gpuq.job;

import java.time.Instant;

/** A job to submit: who asked for what, and when. */
public record NewJob(
    String id, String owner, JobSpec spec, String idempotencyKey, Instant createdAt) {

  /** The job as it is first stored: queued for its first attempt. */
  Job job() {
    return Job.submit(id, owner, spec, idempotencyKey, createdAt);
  }
}
