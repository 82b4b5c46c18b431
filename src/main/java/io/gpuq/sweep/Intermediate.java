package io.gpuq.sweep;

import io.gpuq.reported.MetricPoint;
import java.time.Instant;
import java.util.Optional;

/**
 * One intermediate value of the sweep's metric that a trial reported: at which step, and when gpuq
 * read it (ASHA compares a trial with those that reached a rung before it).
 */
public record Intermediate(long step, double value, Instant at) {

  /** The sweep's metric in a point gpuq read at {@code at}; empty when the line lacks it. */
  public static Optional<Intermediate> of(MetricPoint point, String metric, Instant at) {
    Double value = point.values().get(metric);
    return value == null
        ? Optional.empty()
        : Optional.of(new Intermediate(point.step(), value, at));
  }
}
