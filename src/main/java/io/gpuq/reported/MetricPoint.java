package io.gpuq.reported;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * One line of a metrics file: its step (the line's {@code "step"}, or one more than the previous
 * line's when it gives none, 0 for the first) and its values in the line's order. A value may be
 * NaN or infinite, as Python's json module writes a diverged loss.
 */
public record MetricPoint(long step, Map<String, Double> values) {

  public MetricPoint {
    values = Collections.unmodifiableMap(new LinkedHashMap<>(values));
  }
}
