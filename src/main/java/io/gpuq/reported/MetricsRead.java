package io.gpuq.reported;

import java.util.List;

/**
 * What one read of a metrics file found: the new points in file order, where to read on from, how
 * many lines were skipped as garbage, and whether the per-read cap left bytes for the next read.
 */
public record MetricsRead(
    List<MetricPoint> points, MetricsPosition position, int skippedLines, boolean more) {

  public MetricsRead {
    points = List.copyOf(points);
  }

  static MetricsRead nothing(MetricsPosition position) {
    return new MetricsRead(List.of(), position, 0, false);
  }
}
