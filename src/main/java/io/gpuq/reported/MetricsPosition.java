package io.gpuq.reported;

/**
 * How far a metrics file has been read: the offset of the first byte not yet consumed, the step of
 * the last point (for lines without a step), and whether the reader is inside an over-long line
 * that it has counted and is skipping to its end. gpuq keeps it with the job, so that after a
 * restart it reads on from there.
 */
public record MetricsPosition(long offset, long lastStep, boolean skippingLine) {

  /** A file not read yet. */
  public static final MetricsPosition START = new MetricsPosition(0, -1, false);

  public MetricsPosition {
    if (offset < 0) {
      throw new IllegalArgumentException("an offset is 0 or more, not " + offset);
    }
  }
}
