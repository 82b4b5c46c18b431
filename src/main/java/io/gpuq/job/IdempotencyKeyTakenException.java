package io.gpuq.job;

/** A store refused a new job: its owner already has one with its idempotency key. */
public class IdempotencyKeyTakenException extends RuntimeException {

  public IdempotencyKeyTakenException(String owner, String key, Throwable cause) {
    super("owner " + owner + " already has a job with idempotency key " + key, cause);
  }
}
