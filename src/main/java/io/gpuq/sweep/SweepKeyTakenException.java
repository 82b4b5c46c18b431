package io.gpuq.sweep;

/** Another sweep of this owner got this idempotency key first. */
public class SweepKeyTakenException extends RuntimeException {

  public SweepKeyTakenException(String owner, String key, Throwable cause) {
    super("owner " + owner + " already has a sweep with idempotency key " + key, cause);
  }
}
