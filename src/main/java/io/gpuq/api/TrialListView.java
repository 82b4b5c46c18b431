package io.gpuq.api;

import com.fasterxml.jackson.annotation.JsonRawValue;
import io.gpuq.job.JobState;
import io.gpuq.sweep.TrialRow;
import io.swagger.v3.oas.annotations.media.Schema;
import java.util.List;

/** One page of a sweep's trials table. */
@Schema(name = "TrialList")
public record TrialListView(
    List<TrialView> items,
    @Schema(description = "pass as ?cursor= (with the same order and state) for the next page")
        String nextCursor) {

  @Schema(name = "Trial")
  public record TrialView(
      String jobId,
      int trial,
      @Schema(type = "object") @JsonRawValue String parameters,
      JobState state,
      @Schema(description = "the last value of the sweep's metric it reported") Double value,
      @Schema(description = "its best value of the metric, by the sweep's goal") Double bestValue,
      @Schema(description = "the last step it reported") Long step) {

    static TrialView of(TrialRow row) {
      return new TrialView(
          row.jobId(),
          row.trial(),
          row.parametersJson(),
          row.state(),
          Numbers.finite(row.value()),
          Numbers.finite(row.bestValue()),
          row.step());
    }
  }
}
