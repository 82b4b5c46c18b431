package io.gpuq.api;

import io.gpuq.job.ReportedPoint;
import io.swagger.v3.oas.annotations.media.Schema;
import java.time.Instant;
import java.util.List;
import java.util.Map;

/** What a job's run reported through {@code GPUQ_METRICS_FILE}, in the order gpuq read it. */
@Schema(name = "MetricSeries")
public record MetricSeriesView(List<Point> series) {

  @Schema(name = "MetricPoint")
  public record Point(
      @Schema(
              description =
                  "the attempt whose run reported it: a retry's run starts a new file, and its"
                      + " steps start again")
          int attempt,
      long step,
      @Schema(description = "the line's numbers; null where it reported NaN or an infinity")
          Map<String, Double> values,
      @Schema(description = "when gpuq read the line") Instant at) {}

  static MetricSeriesView of(List<ReportedPoint> points) {
    return new MetricSeriesView(
        points.stream().map(p -> new Point(p.attempt(), p.step(), p.values(), p.at())).toList());
  }
}
