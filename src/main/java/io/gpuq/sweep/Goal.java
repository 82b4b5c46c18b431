package io.gpuq.sweep;

import io.gpuq.job.WireNamed;

/** Whether the sweep's metric is better low (a loss) or high (an accuracy). */
public enum Goal implements WireNamed {
  MINIMIZE,
  MAXIMIZE;

  /** Whether {@code a} is strictly worse than {@code b} (never for NaN). */
  public boolean worse(double a, double b) {
    return this == MINIMIZE ? a > b : a < b;
  }

  /** The better of two values, ignoring NaN unless both are. */
  public double better(double a, double b) {
    if (Double.isNaN(a)) {
      return b;
    }
    if (Double.isNaN(b)) {
      return a;
    }
    return worse(a, b) ? b : a;
  }

  /**
   * The goal a request or a stored sweep names, in any case: {@code minimize} or {@code maximize}.
   *
   * @throws IllegalArgumentException for any other name
   */
  public static Goal of(String name) {
    return valueOf(name.toUpperCase(java.util.Locale.ROOT));
  }
}
