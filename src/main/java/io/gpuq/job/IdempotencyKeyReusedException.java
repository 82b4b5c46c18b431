package io.gpuq.job;

/**
 * A submission reused an Idempotency-Key with a different request: it is neither a retry of the
 * first one nor a new job.
 */
public class IdempotencyKeyReusedException extends RuntimeException {

  private final String jobId;

  public IdempotencyKeyReusedException(String jobId) {
    super(
        "this Idempotency-Key was used for job "
            + jobId
            + " with a different request; use a new key for a new job");
    this.jobId = jobId;
  }

  /** The job the key's first submission created. */
  public String jobId() {
    return jobId;
  }
}
