package io.gpuq.api;

import io.gpuq.api.JobNotificationsController.NotificationsView;
import io.gpuq.job.Caller;
import io.gpuq.notify.Outbox;
import io.gpuq.sweeprun.SweepService;
import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.responses.ApiResponse;
import io.swagger.v3.oas.annotations.tags.Tag;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * Where a sweep's notifications stand (issue 37), read as a job's are ({@link
 * JobNotificationsController}), with the rights of the sweep: its owner or an admin. The URLs are
 * not shown.
 */
@RestController
@RequestMapping("/api/v1/sweeps")
@Tag(name = "sweeps")
public class SweepNotificationsController {

  private final SweepService sweeps;
  private final Outbox outbox;

  public SweepNotificationsController(SweepService sweeps, Outbox outbox) {
    this.sweeps = sweeps;
    this.outbox = outbox;
  }

  @GetMapping("/{id}/notifications")
  @Operation(
      summary = "Where the sweep's notifications stand (new, issue 37)",
      description =
          "One entry per notify target (its event is DONE), as for a job: status WAITING (the"
              + " sweep has not ended), DUE (being sent or retried), DELIVERED or GAVE_UP, its"
              + " tries and the last try's error.")
  @ApiResponse(responseCode = "200", description = "its notifications; empty for none")
  @ApiResponse(responseCode = "403", description = "another user's sweep")
  @ApiResponse(responseCode = "404", description = "no such sweep")
  public NotificationsView notifications(Caller caller, @PathVariable String id) {
    sweeps.get(caller, id);
    return NotificationsView.of(outbox.standingsOfSweep(id));
  }
}
