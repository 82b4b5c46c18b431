package io.gpuq.api;

import io.gpuq.job.Caller;
import io.gpuq.job.JobQueries;
import io.gpuq.sweeprun.SweepService;
import io.gpuq.warm.WarmFallbacks;
import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.media.Schema;
import io.swagger.v3.oas.annotations.responses.ApiResponse;
import io.swagger.v3.oas.annotations.tags.Tag;
import java.time.Instant;
import java.util.List;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RestController;

/**
 * Warm starts (issue 36): the attempts of a sweep's trials, or of a job, that asked for a warm
 * start ({@code preload}) and started cold, with why.
 */
@RestController
@Tag(name = "warm starts", description = "Which trials started cold instead of warm, and why")
@ApiResponse(responseCode = "403", description = "another user's sweep or job")
@ApiResponse(responseCode = "404", description = "no such sweep or job")
public class WarmStartController {

  /** Most fallbacks one answer lists. */
  static final int MAX_LISTED = 200;

  @Schema(name = "WarmStartFallback")
  public record FallbackView(
      String jobId,
      int attempt,
      @Schema(description = "why it started cold, as its log says") String reason,
      Instant at) {

    static FallbackView of(WarmFallbacks.Fallback fallback) {
      return new FallbackView(
          fallback.jobId(), fallback.attempt(), fallback.reason(), fallback.at());
    }
  }

  @Schema(name = "WarmStarts")
  public record WarmStartsView(
      @Schema(
              description =
                  "each attempt that asked for a warm start and started cold, oldest first")
          List<FallbackView> fallbacks) {}

  private final SweepService sweeps;
  private final JobQueries jobs;
  private final WarmFallbacks fallbacks;

  public WarmStartController(SweepService sweeps, JobQueries jobs, WarmFallbacks fallbacks) {
    this.sweeps = sweeps;
    this.jobs = jobs;
    this.fallbacks = fallbacks;
  }

  @GetMapping("/api/v1/sweeps/{id}/warm-starts")
  @Operation(summary = "New (issue 36): the sweep's trials that started cold instead of warm")
  public WarmStartsView ofSweep(Caller caller, @PathVariable String id) {
    sweeps.get(caller, id);
    return new WarmStartsView(
        fallbacks.ofSweep(id, MAX_LISTED).stream().map(FallbackView::of).toList());
  }

  @GetMapping("/api/v1/jobs/{id}/warm-starts")
  @Operation(summary = "New (issue 36): the job's attempts that started cold instead of warm")
  public WarmStartsView ofJob(Caller caller, @PathVariable String id) {
    jobs.get(caller, id);
    return new WarmStartsView(fallbacks.ofJob(id).stream().map(FallbackView::of).toList());
  }
}
