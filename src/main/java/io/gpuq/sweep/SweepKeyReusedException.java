package io.gpuq.sweep;

/**
 * A sweep request reused an Idempotency-Key with a different body: neither a retry of the first
 * request nor a new sweep.
 */
public class SweepKeyReusedException extends RuntimeException {

  private final String sweepId;

  public SweepKeyReusedException(String sweepId) {
    super(
        "this Idempotency-Key was used for sweep "
            + sweepId
            + " with a different request; use a new key for a new sweep");
    this.sweepId = sweepId;
  }

  /** The sweep the key's first request created. */
  public String sweepId() {
    return sweepId;
  }
}
