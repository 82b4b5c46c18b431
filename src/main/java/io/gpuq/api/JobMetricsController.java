package io.gpuq.api;

import io.gpuq.job.Caller;
import io.gpuq.job.FieldError;
import io.gpuq.job.InvalidJobRequestException;
import io.gpuq.job.JobQueries;
import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.Parameter;
import io.swagger.v3.oas.annotations.responses.ApiResponse;
import io.swagger.v3.oas.annotations.tags.Tag;
import java.util.ArrayList;
import java.util.List;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
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

  /**
   * A bound on one answer's bytes, whatever the points hold (each may carry 64 long names): a page
   * ends before the point that would pass it, and never holds fewer than one point.
   */
  static final long MAX_ANSWER_BYTES = 2L * 1024 * 1024;

  private final JobQueries jobs;

  public JobMetricsController(JobQueries jobs) {
    this.jobs = jobs;
  }

  @GetMapping("/{id}/metrics")
  @Operation(
      summary = "The metrics the job's run reported",
      description =
          "The lines the run appended to GPUQ_METRICS_FILE that gpuq has read and kept (it reads"
              + " as it polls), in that order, a page at a time: at most `limit` points (1 to "
              + MAX_POINTS
              + ") and about 2 MiB; `nextCursor` fetches the next page. NaN and infinite values"
              + " are null.")
  @ApiResponse(responseCode = "200", description = "one page of the series")
  @ApiResponse(responseCode = "400", description = "bad limit or cursor")
  @ApiResponse(responseCode = "403", description = "another user's job")
  @ApiResponse(responseCode = "404", description = "no such job")
  public MetricSeriesView metrics(
      Caller caller,
      @PathVariable String id,
      @Parameter(description = "1 to " + MAX_POINTS + ", default " + MAX_POINTS)
          @RequestParam(required = false)
          Integer limit,
      @Parameter(description = "nextCursor of the previous page") @RequestParam(required = false)
          String cursor) {
    List<FieldError> errors = new ArrayList<>();
    int points = limit == null ? MAX_POINTS : limit;
    if (points < 1 || points > MAX_POINTS) {
      errors.add(new FieldError("limit", "must be between 1 and " + MAX_POINTS));
    }
    long after = MetricsCursors.decode(cursor, errors);
    if (!errors.isEmpty()) {
      throw new InvalidJobRequestException(errors);
    }
    return MetricSeriesView.of(jobs.metrics(caller, id, after, points, MAX_ANSWER_BYTES));
  }
}
