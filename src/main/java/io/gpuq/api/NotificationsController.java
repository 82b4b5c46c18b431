package io.gpuq.api;

import io.gpuq.job.Caller;
import io.gpuq.job.JobQueries;
import io.gpuq.notify.Outbox;
import io.gpuq.sweeprun.SweepService;
import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.responses.ApiResponse;
import io.swagger.v3.oas.annotations.tags.Tag;
import java.time.Instant;
import java.util.List;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RestController;

/**
 * Where a job's or a sweep's notifications stand (issue 37), read from the outbox with the rights
 * of the job or the sweep: its owner (or an admin) sees whether each was delivered and the last
 * error of one that was not. The URLs are not shown.
 */
@RestController
public class NotificationsController {

  private final JobQueries jobs;
  private final SweepService sweeps;
  private final Outbox outbox;

  public NotificationsController(JobQueries jobs, SweepService sweeps, Outbox outbox) {
    this.jobs = jobs;
    this.sweeps = sweeps;
    this.outbox = outbox;
  }

  /** One notification: its event, status, tries and last error. */
  public record NotificationView(
      String id,
      String event,
      String status,
      int attempts,
      Instant happenedAt,
      Instant settledAt,
      String lastError) {}

  /** A job's (or a sweep's) notifications. */
  public record NotificationsView(List<NotificationView> notifications) {

    static NotificationsView of(List<Outbox.Standing> standings) {
      return new NotificationsView(
          standings.stream()
              .map(
                  s ->
                      new NotificationView(
                          s.id(),
                          s.event().name(),
                          s.status(),
                          s.attempts(),
                          s.happenedAt(),
                          s.settledAt(),
                          s.lastError()))
              .toList());
    }
  }

  @GetMapping("/api/v1/jobs/{id}/notifications")
  @Tag(name = "jobs")
  @Operation(
      summary = "Where the job's notifications stand (new, issue 37)",
      description =
          "One entry per notify target and event, in the order asked: status WAITING (the event"
              + " has not happened), DUE (being sent or retried), DELIVERED, GAVE_UP or SKIPPED"
              + " (the event can no longer happen), its tries and the last try's error.")
  @ApiResponse(responseCode = "200", description = "its notifications; empty for none")
  @ApiResponse(responseCode = "403", description = "another user's job")
  @ApiResponse(responseCode = "404", description = "no such job")
  public NotificationsView jobNotifications(Caller caller, @PathVariable String id) {
    jobs.get(caller, id);
    return NotificationsView.of(outbox.standingsOf(id));
  }

  @GetMapping("/api/v1/sweeps/{id}/notifications")
  @Tag(name = "sweeps")
  @Operation(
      summary = "Where the sweep's notifications stand (new, issue 37)",
      description =
          "One entry per notify target (its event is DONE), as for a job: status WAITING (the"
              + " sweep has not ended), DUE (being sent or retried), DELIVERED or GAVE_UP, its"
              + " tries and the last try's error.")
  @ApiResponse(responseCode = "200", description = "its notifications; empty for none")
  @ApiResponse(responseCode = "403", description = "another user's sweep")
  @ApiResponse(responseCode = "404", description = "no such sweep")
  public NotificationsView sweepNotifications(Caller caller, @PathVariable String id) {
    sweeps.get(caller, id);
    return NotificationsView.of(outbox.standingsOfSweep(id));
  }
}
