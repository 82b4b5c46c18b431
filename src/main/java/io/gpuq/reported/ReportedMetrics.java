package io.gpuq.reported;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * What a job's view shows of the metrics its run reported: the latest value of each (null when it
 * was NaN or infinite) and their step; for a trial, its sweep's metric and that metric's best value
 * (null until one is reported).
 *
 * @param metric the sweep's metric, or null for a job of its own or a sweep without one
 */
public record ReportedMetrics(Map<String, Double> latest, Long step, String metric, Double best) {

  public ReportedMetrics {
    latest = Collections.unmodifiableMap(new LinkedHashMap<>(latest));
  }
}
