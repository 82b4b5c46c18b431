package io.gpuq.sweep;

/**
 * What a sweep may store in all, checked before any of it is built: each trial is a job that
 * repeats the template, so a 0.5 MB template in a 1,000-trial grid is 500 MB of jobs (once the
 * heap's end, once 1.9 GB of labels in the database).
 *
 * <p>The estimate of one trial's stored bytes: {@value #ROW_BYTES} for its job row (ids, states,
 * times), the template as JSON (command, working directory, environment and labels, stored in the
 * trial's row and its labels' rows), its parameters as JSON twice (the row and {@code
 * GPUQ_PARAMS}), and {@value #LABEL_ROW_BYTES} per label for its own row and index entry (the
 * {@code sweep} label included).
 */
public final class SweepSize {

  /** The estimated bytes one sweep's trials may store in all: 64 MiB. */
  public static final long MAX_STORED_BYTES = 64L << 20;

  /** The labels one sweep's trials may carry in all, the {@code sweep} label included. */
  public static final long MAX_LABELS = 100_000;

  static final int ROW_BYTES = 1024;
  static final int LABEL_ROW_BYTES = 512;

  private SweepSize() {}

  /**
   * Checks a sweep of {@code trials} trials.
   *
   * @param templateBytes the template's JSON, in UTF-8 bytes
   * @param labels the labels the template gives each trial (the {@code sweep} label is added)
   * @param parametersBytes the trials' parameters as JSON, in UTF-8 bytes, over every trial
   * @throws SweepTooLargeException naming the limit it passes
   */
  public static void check(int trials, long templateBytes, int labels, long parametersBytes) {
    long labelCount = (long) trials * (labels + 1);
    if (labelCount > MAX_LABELS) {
      throw new SweepTooLargeException(
          "labels",
          MAX_LABELS,
          labelCount,
          String.format(
              "%,d trials × %,d labels (the sweep label included) are %,d labels; a sweep's"
                  + " trials carry at most %,d labels in all: fewer trials or fewer labels",
              trials, labels + 1, labelCount, MAX_LABELS));
    }
    long perTrial = ROW_BYTES + templateBytes + (long) (labels + 1) * LABEL_ROW_BYTES;
    long bytes = trials * perTrial + 2 * parametersBytes;
    if (bytes > MAX_STORED_BYTES) {
      throw new SweepTooLargeException(
          "storedBytes",
          MAX_STORED_BYTES,
          bytes,
          String.format(
              "%,d trials of a %,d-byte template would store about %,d bytes; a sweep stores at"
                  + " most %,d bytes (64 MiB) in all: fewer trials or a smaller template",
              trials, templateBytes, bytes, MAX_STORED_BYTES));
    }
  }
}
