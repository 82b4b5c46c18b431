package io.gpuq.api;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonRawValue;
import io.gpuq.job.JobState;
import io.gpuq.sweep.BestTrial;
import io.gpuq.sweep.Sweep;
import io.gpuq.sweeprun.SweepSummary;
import io.swagger.v3.oas.annotations.media.Schema;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;

/** A sweep as the API shows it (API.md, "The sweep"). */
@Schema(name = "Sweep")
public record SweepView(
    String id,
    String name,
    String owner,
    @Schema(description = "grid, random or external") String method,
    @Schema(description = "RUNNING, DONE or CANCELLED") String state,
    @Schema(description = "\"total\", then the number of trials in each job state")
        Map<String, Long> trials,
    @Schema(description = "trials that have ended, as a share of all of them (0 to 1)")
        double progress,
    MetricView metric,
    @Schema(description = "the trial with the best value of the metric so far; null before any")
        BestView best,
    Integer maxConcurrent,
    @Schema(description = "a random sweep's seed: the request's, or the one gpuq drew") Long seed,
    @Schema(type = "object", description = "the early-stopping rule as the request gave it")
        @JsonRawValue
        String earlyStopping,
    @Schema(description = "no more trials will be added (always, but for an open external sweep)")
        boolean closed,
    Instant createdAt,
    Instant cancelledAt,
    Instant finishedAt) {

  @Schema(name = "SweepMetric")
  public record MetricView(String name, String goal) {}

  @Schema(name = "SweepBestTrial")
  @JsonInclude(JsonInclude.Include.ALWAYS)
  public record BestView(
      String jobId,
      int trial,
      @Schema(type = "object") @JsonRawValue String parameters,
      @Schema(description = "its best value of the metric") Double value,
      @Schema(description = "the last step it reported") Long step) {

    static BestView of(BestTrial best) {
      return new BestView(
          best.jobId(),
          best.trial(),
          best.parametersJson(),
          Numbers.finite(best.value()),
          best.step());
    }
  }

  static SweepView of(SweepSummary summary) {
    Sweep sweep = summary.sweep();
    Map<String, Long> trials = new LinkedHashMap<>();
    long total = summary.total();
    trials.put("total", total);
    long ended = 0;
    for (JobState state : JobState.ofJobs()) {
      long count = summary.trials().getOrDefault(state, 0L);
      trials.put(state.name(), count);
      if (state.isTerminal()) {
        ended += count;
      }
    }
    return new SweepView(
        sweep.id(),
        sweep.name(),
        sweep.owner(),
        sweep.method(),
        summary.state().name(),
        trials,
        total == 0 ? 0 : (double) ended / total,
        sweep.metric() == null
            ? null
            : new MetricView(sweep.metric().name(), sweep.metric().goal().wireName()),
        summary.best().map(BestView::of).orElse(null),
        sweep.maxConcurrent(),
        sweep.seed(),
        sweep.earlyStoppingJson(),
        sweep.closed(),
        sweep.createdAt(),
        sweep.cancelledAt(),
        sweep.finishedAt());
  }
}
