package io.gpuq.api;

import io.gpuq.job.Caller;
import io.gpuq.job.InvalidJobRequestException;
import io.gpuq.job.JobService;
import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.Parameter;
import io.swagger.v3.oas.annotations.responses.ApiResponse;
import io.swagger.v3.oas.annotations.tags.Tag;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RequestAttribute;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

/** The metrics a job's run reported ({@code GPUQ_METRICS_FILE}), with the rights of the job. */
@RestController
@RequestMapping("/api/v1/jobs")
@Tag(name = "jobs")
public class JobMetricsController {

  /** A bound on one answer: ten thousand points are a few hundred KiB of JSON. */
  static final int MAX_POINTS = 10_000;

  private final JobService jobs;

  public JobMetricsController(JobService jobs) {
    this.jobs = jobs;
  }

  @GetMapping("/{id}/metrics")
  @Operation(
      summary = "The metrics the job's run reported",
      description =
          "Every line the run appended to GPUQ_METRICS_FILE that gpuq has read (it reads as it"
              + " polls), in that order: the first `limit` points, at most "
              + MAX_POINTS
              + ". NaN and infinite values are null.")
  @ApiResponse(responseCode = "200", description = "the series")
  @ApiResponse(responseCode = "400", description = "bad limit")
  public MetricSeriesView metrics(
      @Parameter(hidden = true) @RequestAttribute(CallerAttribute.NAME) Caller caller,
      @PathVariable String id,
      @Parameter(description = "1 to 10000, default 10000") @RequestParam(required = false)
          Integer limit) {
    int points = limit == null ? MAX_POINTS : limit;
    if (points < 1 || points > MAX_POINTS) {
      throw new InvalidJobRequestException("limit", "must be between 1 and " + MAX_POINTS);
    }
    return MetricSeriesView.of(jobs.metrics(caller, id, points));
  }
}
