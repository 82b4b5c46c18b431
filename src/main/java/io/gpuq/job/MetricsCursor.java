package io.gpuq.job;

/**
 * How far gpuq has read a job's metrics file, kept with the job so that a restarted gpuq reads on
 * from there: the offset of the first byte not consumed, the step of the last point (for lines
 * without one), whether it is inside an over-long line it is skipping, and how many lines it has
 * skipped as garbage so far.
 */
public record MetricsCursor(long offset, long lastStep, boolean skippingLine, long skippedLines) {

  /** A file not read yet. */
  public static final MetricsCursor START = new MetricsCursor(0, -1, false, 0);
}
