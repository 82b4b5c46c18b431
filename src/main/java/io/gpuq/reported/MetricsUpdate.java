package io.gpuq.reported;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What one read of an attempt's metrics file adds, stored at once: the new points kept (numbered on
 * from the job's last) with their index in the attempt, whether the points stored before are to be
 * thinned to the cursor's stride, where the next read starts, what its view shows (the latest value
 * of each metric and the step of the last point), for a trial its sweep metric's last and best
 * value, and whether the file is read to the end of an ended job.
 *
 * @param attempt the attempt whose file was read: a store drops the update when the job has moved
 *     on to another attempt meanwhile (its file is another)
 * @param indexes each point's index in its attempt ({@link MetricsCaps#keeps}), or empty when the
 *     points have none (they are then never thinned)
 * @param thin whether the stride grew: the attempt's stored points past {@link
 *     MetricsCaps#FIRST_POINTS} whose index is off {@code next.stride()} are deleted
 * @param step the step of the last point, or null when none was ever reported
 * @param metricValue the sweep metric's last value reported, or null
 * @param metricBest its best value by the sweep's goal (never NaN or infinite), or null
 */
public record MetricsUpdate(
    String jobId,
    int attempt,
    List<ReportedPoint> points,
    List<Long> indexes,
    boolean thin,
    ReadingState next,
    Map<String, Double> latest,
    Long step,
    Double metricValue,
    Double metricBest,
    boolean done) {

  public MetricsUpdate {
    points = List.copyOf(points);
    indexes = List.copyOf(indexes);
    if (!indexes.isEmpty() && indexes.size() != points.size()) {
      throw new IllegalArgumentException("one index per point, or none");
    }
    latest = Collections.unmodifiableMap(new LinkedHashMap<>(latest));
  }

  /** The index of the {@code i}-th point, or null when the points have none. */
  public Long indexOf(int i) {
    return indexes.isEmpty() ? null : indexes.get(i);
  }
}
