package io.gpuq.reported;

/**
 * How far gpuq has read a job's metrics file and what it kept of it, kept with the job so that a
 * restarted gpuq reads on from there: the file reader's position ({@link #position()}, which is all
 * one read needs) and what is counted across reads. The offset of the first byte not consumed, the
 * step of the last point (for lines without one), whether it is inside an over-long line it is
 * skipping, and how many lines it has skipped as garbage so far; then the caps' state ({@link
 * MetricsCaps}): how many points this attempt reported (kept or not, each point's index), every how
 * many points past the first it keeps now, how many values it skipped for a name past the cap,
 * where reading stood when it first read the file of the ended job, and whether it stopped before
 * that file's end.
 *
 * @param points the points this attempt's file has reported so far: the next point's index
 * @param stride past {@link MetricsCaps#FIRST_POINTS}, a point is kept when its index is on this
 *     stride (1, then doubled each time the attempt's kept points would pass the cap)
 * @param skippedValues values skipped because their name came after the cap on names was reached
 * @param endOffset the offset reading had reached when it first read on after the job's end, or -1
 * @param cut whether reading stopped, {@link MetricsCaps#MAX_BYTES_AFTER_END} after the job's end,
 *     before the end of its file
 */
public record ReadingState(
    long offset,
    long lastStep,
    boolean skippingLine,
    long skippedLines,
    long points,
    long stride,
    long skippedValues,
    long endOffset,
    boolean cut) {

  /** A file not read yet. */
  public static final ReadingState START = new ReadingState(0, -1, false, 0);

  public ReadingState {
    if (stride < 1) {
      throw new IllegalArgumentException("a stride is 1 or more, not " + stride);
    }
  }

  /** Where the file reader reads on from: the part of this state that one read needs. */
  public MetricsPosition position() {
    return new MetricsPosition(offset, lastStep, skippingLine);
  }

  /** Where reading stands in a file of which nothing was kept past the caps' start. */
  public ReadingState(long offset, long lastStep, boolean skippingLine, long skippedLines) {
    this(offset, lastStep, skippingLine, skippedLines, 0, 1, 0, -1, false);
  }
}
