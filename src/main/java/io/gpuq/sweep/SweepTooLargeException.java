package io.gpuq.sweep;

import io.gpuq.job.LimitExceededException;

/**
 * A sweep would store more than {@link SweepSize} allows; nothing of it is stored.
 *
 * @see SweepSize
 */
public class SweepTooLargeException extends LimitExceededException {

  /**
   * @param limit which limit: {@code storedBytes} or {@code labels}
   * @param max that limit's value
   * @param requested what the sweep would reach
   */
  public SweepTooLargeException(String limit, long max, long requested, String message) {
    super(
        message,
        new Figure("limit", limit),
        new Figure("max", max),
        new Figure("requested", requested));
  }

  public String limit() {
    return figure("limit", String.class);
  }

  public long max() {
    return figure("max", Long.class);
  }

  public long requested() {
    return figure("requested", Long.class);
  }
}
