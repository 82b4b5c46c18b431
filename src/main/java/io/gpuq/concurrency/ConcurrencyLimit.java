package io.gpuq.concurrency;

/** A sweep's {@code maxConcurrent}: how many of its trials may run at once. */
public record ConcurrencyLimit(int max) {

  /** No {@code maxConcurrent}: the GPUs are the only limit. */
  public static final ConcurrencyLimit UNLIMITED = new ConcurrencyLimit(Integer.MAX_VALUE);

  public ConcurrencyLimit {
    if (max < 1) {
      throw new IllegalArgumentException("maxConcurrent must be at least 1, not " + max);
    }
  }

  /**
   * How many more of the sweep's queued trials may start while {@code running} of them run (a
   * running count over the limit, as after the limit was lowered, starts none).
   */
  public int startable(int running, int queued) {
    return Math.min(queued, free(running));
  }

  /**
   * How many more trials may start while {@code running} run, queued or not: the one rule, which
   * the scheduler asks through {@link TrialSlots#free()}.
   */
  public int free(long running) {
    return (int) Math.max(0, max - Math.max(0, running));
  }

  public boolean isUnlimited() {
    return max == Integer.MAX_VALUE;
  }
}
