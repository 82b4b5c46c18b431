package io.gpuq.api;

import io.gpuq.job.Caller;
import io.gpuq.job.InvalidJobRequestException;
import io.gpuq.job.UsageReport;
import io.gpuq.job.UsageSource;
import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.Parameter;
import io.swagger.v3.oas.annotations.responses.ApiResponse;
import io.swagger.v3.oas.annotations.tags.Tag;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.time.format.DateTimeParseException;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

@RestController
@RequestMapping("/api/v1/usage")
@Tag(name = "usage", description = "Who used what: GPU-, core- and memory-hours, jobs, waits")
public class UsageController {

  /** The longest window one report reads. */
  private static final Duration MAX_WINDOW = Duration.ofDays(400);

  private final UsageSource source;
  private final Clock clock;

  public UsageController(UsageSource source, Clock clock) {
    this.source = source;
    this.clock = clock;
  }

  @GetMapping
  @Operation(
      summary = "Usage per owner, label or day (new, issue 37)",
      description =
          "From the attempts gpuq stores: each attempt counts, whole, in the window it ended in;"
              + " each job in the window it finished in. An admin sees every group; a submitter"
              + " the groups of their own jobs, and everyone's totals.")
  @ApiResponse(responseCode = "200", description = "the groups and the totals")
  @ApiResponse(responseCode = "400", description = "from, to or by is malformed")
  public UsageReport usage(
      Caller caller,
      @Parameter(description = "a date (UTC) or an instant; default: 30 days before to")
          @RequestParam(required = false)
          String from,
      @Parameter(description = "a date (UTC, excluded) or an instant; default: now")
          @RequestParam(required = false)
          String to,
      @Parameter(description = "owner (default), day, or label:KEY") @RequestParam(required = false)
          String by,
      @Parameter(
              description =
                  "only this owner's groups (new, issue 37); a submitter may name only themselves")
          @RequestParam(required = false)
          String owner) {
    Instant end = to == null ? clock.instant() : instant("to", to);
    Instant start = from == null ? end.minus(Duration.ofDays(30)) : instant("from", from);
    if (!start.isBefore(end)) {
      throw new InvalidJobRequestException("from", "must be before to");
    }
    if (Duration.between(start, end).compareTo(MAX_WINDOW) > 0) {
      throw new InvalidJobRequestException("from", "a report covers at most 400 days");
    }
    String byText = by == null ? "owner" : by;
    UsageReport.By grouping;
    String labelKey = null;
    if (byText.equals("owner")) {
      grouping = UsageReport.By.OWNER;
    } else if (byText.equals("day")) {
      grouping = UsageReport.By.DAY;
    } else if (byText.startsWith("label:") && byText.length() > "label:".length()) {
      grouping = UsageReport.By.LABEL;
      labelKey = byText.substring("label:".length());
    } else {
      throw new InvalidJobRequestException("by", "must be owner, day or label:KEY");
    }
    // An admin sees every group; a submitter the groups of their own jobs, and everyone's totals.
    String onlyOwner = caller.isAdmin() ? null : caller.name();
    if (owner != null) {
      if (!caller.mayAccessJobOf(owner)) {
        throw new InvalidJobRequestException("owner", "a submitter sees only their own groups");
      }
      onlyOwner = owner;
    }
    return source.report(start, end, grouping, byText, labelKey, onlyOwner);
  }

  private static Instant instant(String field, String text) {
    try {
      if (text.length() == 10) {
        return LocalDate.parse(text).atStartOfDay(ZoneOffset.UTC).toInstant();
      }
      return Instant.parse(text);
    } catch (DateTimeParseException e) {
      throw new InvalidJobRequestException(field, "must be a date (2026-12-01) or an instant");
    }
  }
}
