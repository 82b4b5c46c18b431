package io.gpuq.sweep;

/**
 * A sweep would store more than {@link SweepSize} allows; nothing of it is stored.
 *
 * @see SweepSize
 */
public class SweepTooLargeException extends RuntimeException {

  private final String limit;
  private final long max;
  private final long requested;

  /**
   * @param limit which limit: {@code storedBytes} or {@code labels}
   * @param max that limit's value
   * @param requested what the sweep would reach
   */
  public SweepTooLargeException(String limit, long max, long requested, String message) {
    super(message);
    this.limit = limit;
    this.max = max;
    this.requested = requested;
  }

  public String limit() {
    return limit;
  }

  public long max() {
    return max;
  }

  public long requested() {
    return requested;
  }
}
