package io.gpuq.reported;

import java.util.List;

/**
 * One page of the points a job reported, in the order they were read, and what the caps left out of
 * its current attempt ({@link MetricsCaps}).
 *
 * @param nextAfter the position to read the next page after, or null when this page is the last
 * @param skippedLines lines of the current attempt's file that were not metrics lines
 * @param skippedValues values of the current attempt skipped for a name past the cap on names
 * @param cut whether reading stopped before the end of the ended job's file
 */
public record MetricsPage(
    List<ReportedPoint> points,
    Long nextAfter,
    long skippedLines,
    long skippedValues,
    boolean cut) {

  public MetricsPage {
    points = List.copyOf(points);
  }
}
