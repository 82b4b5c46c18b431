package io.gpuq.reported;

/**
 * What one job's reported metrics may cost gpuq, whatever its run writes (docs/api.md, "Metrics
 * reported by a run"). Each bound keeps a representative part and counts or says what it left out:
 *
 * <ul>
 *   <li>names: an attempt keeps the first {@link #MAX_NAMES} metric names it reports (and its
 *       sweep's metric whenever it comes); a value of any later name is counted and skipped.
 *   <li>points: an attempt keeps its first {@link #FIRST_POINTS} points, then evenly spaced ones:
 *       every {@code stride}-th by index, the stride doubling (and the kept points past the first
 *       thinned to it) whenever the attempt would keep more than {@link #MAX_POINTS}. The latest
 *       value of each name and the sweep metric's best are kept apart, whatever was thinned.
 *   <li>bytes: each poll reads at most {@link #MAX_BYTES_PER_POLL} of a job's file (the rest at
 *       later polls), and once the job has ended at most {@link #MAX_BYTES_AFTER_END} more.
 * </ul>
 */
public final class MetricsCaps {

  /** Distinct metric names one attempt keeps. */
  public static final int MAX_NAMES = 64;

  /** Points one attempt keeps all of, before it keeps evenly spaced ones. */
  public static final int FIRST_POINTS = 1_000;

  /** Points one attempt keeps at most. */
  public static final int MAX_POINTS = 5_000;

  /** Bytes of one job's file read in one poll. */
  public static final int MAX_BYTES_PER_POLL = 4 * 1024 * 1024;

  /** Bytes of a job's file read after the job has ended, over every poll. */
  public static final long MAX_BYTES_AFTER_END = 64L * 1024 * 1024;

  private MetricsCaps() {}

  /** Whether the point of this index (from 0) is kept while the stride is {@code stride}. */
  public static boolean keeps(long index, long stride) {
    return index < FIRST_POINTS || (index - FIRST_POINTS) % stride == 0;
  }

  /** How many of the first {@code points} points are kept at this stride. */
  public static long kept(long points, long stride) {
    if (points <= FIRST_POINTS) {
      return points;
    }
    return FIRST_POINTS + (points - FIRST_POINTS + stride - 1) / stride;
  }
}
