package io.gpuq.reported;

import java.time.Instant;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * One line a run reported through its metrics file, as stored: the attempt whose run wrote it (a
 * retry starts a new file, and its steps start again), its step, its values in the line's order
 * (null for a value that was NaN or infinite: JSON has no such numbers) and when gpuq read it.
 */
public record ReportedPoint(int attempt, long step, Map<String, Double> values, Instant at) {

  public ReportedPoint {
    values = Collections.unmodifiableMap(new LinkedHashMap<>(values));
  }
}
