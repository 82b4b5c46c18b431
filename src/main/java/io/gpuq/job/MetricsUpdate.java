package io.gpuq.job;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What one read of an attempt's metrics file adds, stored at once: the new points (numbered on from
 * the job's last), where the next read starts, what its view shows (the latest value of each metric
 * and the step of the last point), for a trial its sweep metric's last and best value, and whether
 * the file is read to the end of an ended job.
 *
 * @param attempt the attempt whose file was read: a store drops the update when the job has moved
 *     on to another attempt meanwhile (its file is another)
 * @param step the step of the last point, or null when none was ever reported
 * @param metricValue the sweep metric's last value reported, or null
 * @param metricBest its best value by the sweep's goal (never NaN or infinite), or null
 */
public record MetricsUpdate(
    String jobId,
    int attempt,
    List<ReportedPoint> points,
    MetricsCursor next,
    Map<String, Double> latest,
    Long step,
    Double metricValue,
    Double metricBest,
    boolean done) {

  public MetricsUpdate {
    points = List.copyOf(points);
    latest = Collections.unmodifiableMap(new LinkedHashMap<>(latest));
  }
}
