package io.gpuq.sweep;

import io.gpuq.reported.MetricNames;
import io.gpuq.text.JsonNumbers;

/** The bounds of one sweep request. */
public final class SweepLimits {

  /**
   * The most trials one sweep has: a grid's product, a random search's {@code trials}, an external
   * sweep's added trials. One request of this many is what the benchmark admits in under a second.
   */
  public static final int MAX_TRIALS = 10_000;

  public static final int MAX_PARAMETERS = 32;

  /** A string value: long enough for a path, short enough to repeat in 10,000 trials. */
  public static final int MAX_STRING_VALUE_LENGTH = 1024;

  /**
   * Whole numbers stay within what a double holds exactly, so that every JSON reader (JavaScript,
   * Python's float) reads back the number that was sampled.
   */
  public static final long MAX_SAFE_INTEGER = JsonNumbers.MAX_SAFE_INTEGER;

  public static final int MAX_REDUCTION_FACTOR = 100;

  /** A metric's name, also a key of the metrics file. */
  public static final int MAX_METRIC_NAME_LENGTH = MetricNames.MAX_LENGTH;

  private SweepLimits() {}
}
