package io.gpuq.api;

import io.gpuq.reported.MetricsPage;
import io.gpuq.reported.ReportedPoint;
import io.swagger.v3.oas.annotations.media.Schema;
import java.time.Instant;
import java.util.List;
import java.util.Map;

/** What a job's run reported through {@code GPUQ_METRICS_FILE}, in the order gpuq read it. */
@Schema(name = "MetricSeries")
public record MetricSeriesView(
    List<Point> series,
    @Schema(description = "pass as cursor for the next page; null on the last page")
        String nextCursor,
    @Schema(description = "lines of the current attempt's file that were not metrics lines")
        long skippedLines,
    @Schema(
            description =
                "values of the current attempt skipped because their name came after its first 64")
        long skippedValues,
    @Schema(
            description =
                "true when gpuq stopped reading the ended job's file before its end (it reads at"
                    + " most 64 MiB after the job ends)")
        boolean truncated) {

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

  static MetricSeriesView of(MetricsPage page) {
    return new MetricSeriesView(
        page.points().stream().map(MetricSeriesView::point).toList(),
        MetricsCursors.encode(page.nextAfter()),
        page.skippedLines(),
        page.skippedValues(),
        page.cut());
  }

  private static Point point(ReportedPoint p) {
    return new Point(p.attempt(), p.step(), p.values(), p.at());
  }
}
