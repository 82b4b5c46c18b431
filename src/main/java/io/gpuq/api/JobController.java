package io.gpuq.api;

import io.gpuq.job.Caller;
import io.gpuq.job.FieldError;
import io.gpuq.job.InvalidJobRequestException;
import io.gpuq.job.Job;
import io.gpuq.job.JobPage;
import io.gpuq.job.JobQueries;
import io.gpuq.job.JobRequest;
import io.gpuq.job.JobState;
import io.gpuq.retention.JobFilesDeletion;
import io.gpuq.schedule.JobCommands;
import io.gpuq.schedule.JobCommands.Submitted;
import io.gpuq.schedule.QueuedReasons;
import io.gpuq.schedule.Scheduler;
import io.gpuq.text.UserText;
import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.Parameter;
import io.swagger.v3.oas.annotations.responses.ApiResponse;
import io.swagger.v3.oas.annotations.tags.Tag;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.DeleteMapping;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestHeader;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.ResponseStatus;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.servlet.mvc.method.annotation.StreamingResponseBody;

@RestController
@RequestMapping("/api/v1/jobs")
@Tag(name = "jobs", description = "Submit, follow and cancel training runs")
public class JobController {

  private static final int MAX_LABEL_FILTERS = 64;

  private final JobQueries jobs;
  private final JobCommands commands;
  private final JobLogs logs;
  private final JobFilesDeletion files;

  private final QueuedReasons queuedReasons;

  public JobController(
      JobQueries jobs,
      JobCommands commands,
      JobLogs logs,
      JobFilesDeletion files,
      Scheduler scheduler) {
    this.files = files;
    this.queuedReasons = scheduler.queuedReasons();
    this.jobs = jobs;
    this.commands = commands;
    this.logs = logs;
  }

  @PostMapping(consumes = MediaType.APPLICATION_JSON_VALUE)
  @Operation(summary = "Submit a job")
  @ApiResponse(responseCode = "201", description = "created; Location names the job")
  @ApiResponse(
      responseCode = "200",
      description = "an earlier submission with this Idempotency-Key created it")
  @ApiResponse(responseCode = "400", description = "invalid request; `errors` names each field")
  @ApiResponse(
      responseCode = "422",
      description =
          "the request can never fit on this node's GPUs, or the Idempotency-Key was used before"
              + " with a different request")
  @ApiResponse(responseCode = "429", description = SharedAnswers.TOO_MANY_QUEUED)
  @ApiResponse(responseCode = "507", description = SharedAnswers.NO_ROOM)
  public ResponseEntity<JobView> submit(
      Caller caller,
      @Parameter(description = "a repeated POST with the same key returns the first job (200)")
          @RequestHeader(value = "Idempotency-Key", required = false)
          String idempotencyKey,
      @RequestBody JobRequest request) {
    IdempotencyKeys.check(idempotencyKey);
    Submitted<JobView> submitted =
        commands.submit(caller, request, idempotencyKey, job -> view(caller, job));
    JobView view = submitted.answer();
    return IdempotencyKeys.answer(submitted.created(), view, "/api/v1/jobs/" + view.id());
  }

  @GetMapping("/{id}")
  @Operation(summary = "Get a job")
  @ApiResponse(responseCode = "200", description = "the job")
  @ApiResponse(responseCode = "403", description = "another user's job")
  @ApiResponse(responseCode = "404", description = "no such job")
  public JobView get(Caller caller, @PathVariable String id) {
    return view(caller, jobs.get(caller, id));
  }

  @GetMapping
  @Operation(summary = "List jobs, newest first (admins see all, submitters their own)")
  @ApiResponse(responseCode = "200", description = "one page")
  @ApiResponse(responseCode = "400", description = "bad state, label, limit or cursor")
  @ApiResponse(
      responseCode = "503",
      description =
          "the database did not answer within gpuq.api.query-timeout; Retry-After says when to"
              + " try again")
  public JobListView list(
      Caller caller,
      @Parameter(description = "QUEUED, RUNNING, SUCCEEDED, FAILED, CANCELLED or PRUNED")
          @RequestParam(required = false)
          String state,
      @Parameter(description = "key:value; repeat for several (all must match)")
          @RequestParam(name = "label", required = false)
          List<String> labels,
      @Parameter(description = PageSizes.LIMIT_DOC) @RequestParam(required = false) Integer limit,
      @Parameter(description = "nextCursor of the previous page") @RequestParam(required = false)
          String cursor) {
    List<FieldError> errors = new ArrayList<>();
    JobState stateFilter = parseState(state, errors);
    Map<String, String> labelFilter = parseLabels(labels, errors);
    int pageSize = PageSizes.of(limit, errors);
    String beforeId = IdCursors.decode(cursor, errors);
    if (!errors.isEmpty()) {
      throw new InvalidJobRequestException(errors);
    }
    JobPage page = jobs.list(caller, stateFilter, labelFilter, beforeId, pageSize);
    return new JobListView(views(caller, page.items()), IdCursors.encode(page.nextBeforeId()));
  }

  @PostMapping("/{id}/cancel")
  @Operation(
      summary = "Cancel a job",
      description =
          "A queued job is cancelled at once; a running job's whole process tree gets SIGTERM,"
              + " then SIGKILL after gpuq.worker.kill-grace.")
  @ApiResponse(responseCode = "200", description = "the job, now CANCELLED")
  @ApiResponse(responseCode = "403", description = "another user's job")
  @ApiResponse(responseCode = "404", description = "no such job")
  @ApiResponse(responseCode = "409", description = "the job has already finished")
  public JobView cancel(Caller caller, @PathVariable String id) {
    return view(caller, commands.cancel(caller, id));
  }

  @PostMapping("/{id}/requeue")
  @Operation(
      summary = "Requeue a running job (issue 35)",
      description =
          "Preempts the job now: its process tree gets its preemptSignal, then SIGKILL after its"
              + " preemptGrace; its attempt ends PREEMPTED and the job goes back to the queue,"
              + " without using up retry.maxAttempts. Its owner or an admin.")
  @ApiResponse(responseCode = "200", description = "the job, still RUNNING while it stops")
  @ApiResponse(responseCode = "403", description = "another user's job")
  @ApiResponse(responseCode = "404", description = "no such job")
  @ApiResponse(
      responseCode = "409",
      description = "the job is not running, or is being preempted or requeued already")
  public JobView requeue(Caller caller, @PathVariable String id) {
    return view(caller, commands.requeue(caller, id));
  }

  @GetMapping(value = "/{id}/logs", produces = MediaType.TEXT_PLAIN_VALUE)
  @Operation(summary = "The job's stdout and stderr (all attempts)")
  @ApiResponse(responseCode = "200", description = "text/plain")
  @ApiResponse(responseCode = "403", description = "another user's job")
  @ApiResponse(responseCode = "404", description = "no such job")
  @ApiResponse(
      responseCode = "429",
      description =
          "follow=true while this caller already follows gpuq.api.max-log-followers-per-caller"
              + " logs; Retry-After says when to try again")
  public ResponseEntity<StreamingResponseBody> logs(
      Caller caller,
      @PathVariable String id,
      @Parameter(description = "only the last N lines") @RequestParam(required = false)
          Integer tail,
      @Parameter(description = "keep streaming new lines until the job ends")
          @RequestParam(defaultValue = "false")
          boolean follow,
      HttpServletRequest request,
      HttpServletResponse response)
      throws IOException {
    if (tail != null && tail < 0) {
      throw new InvalidJobRequestException("tail", "must be 0 or more");
    }
    // Read before the log: a job that has ended by now has written all it ever will.
    Job job = jobs.get(caller, id);
    logs.checkReadable(id);
    if (follow && !job.state().isTerminal()) {
      logs.follow(caller, id, tail, request, response);
      // Answered asynchronously; nothing for Spring MVC to write.
      return null;
    }
    return ResponseEntity.status(HttpStatus.OK)
        .contentType(new MediaType("text", "plain", StandardCharsets.UTF_8))
        .header("X-Content-Type-Options", "nosniff")
        .body(logs.stream(id, tail));
  }

  @DeleteMapping("/{id}/files")
  @ResponseStatus(HttpStatus.NO_CONTENT)
  @Operation(
      summary = "Delete a finished job's files (admins; changed by issue 34)",
      description =
          "Deletes the job's log, exit and process files and its work directory on the node that"
              + " answers, before gpuq.retention.finished would, to free a data directory a job"
              + " has filled. The job's record stays; its log then reads as empty. Links the job"
              + " left in its directories are deleted, never followed.")
  @ApiResponse(responseCode = "204", description = "deleted (or there was nothing to delete)")
  @ApiResponse(responseCode = "403", description = "the caller is no admin")
  @ApiResponse(responseCode = "404", description = "no such job")
  @ApiResponse(responseCode = "409", description = "the job has not finished")
  public void deleteFiles(Caller caller, @PathVariable String id) {
    files.delete(caller, id);
  }

  static JobState parseState(String state, List<FieldError> errors) {
    if (state == null) {
      return null;
    }
    try {
      JobState named = JobState.valueOf(state.toUpperCase(Locale.ROOT));
      if (!named.isJobState()) {
        throw new IllegalArgumentException("only an attempt ends " + named);
      }
      return named;
    } catch (IllegalArgumentException e) {
      errors.add(
          new FieldError(
              "state",
              "unknown state \""
                  + UserText.echo(state)
                  + "\"; use one of "
                  + List.of(JobState.ofJobs())));
      return null;
    }
  }

  private static Map<String, String> parseLabels(List<String> labels, List<FieldError> errors) {
    Map<String, String> parsed = new LinkedHashMap<>();
    if (labels == null) {
      return parsed;
    }
    if (labels.size() > MAX_LABEL_FILTERS) {
      errors.add(new FieldError("label", "give at most " + MAX_LABEL_FILTERS + " labels"));
      return parsed;
    }
    for (String label : labels) {
      int colon = label.indexOf(':');
      if (colon <= 0) {
        errors.add(new FieldError("label", "\"" + UserText.echo(label) + "\" is not key:value"));
      } else {
        parsed.put(label.substring(0, colon), label.substring(colon + 1));
      }
    }
    return parsed;
  }

  private JobView view(Caller caller, Job job) {
    String waiting = commands.waitingReason(job);
    String reason =
        waiting != null
            ? waiting
            : forCaller(caller, queuedReasons.of(job), new OwnJobs(jobs, caller));
    return caller.isAdmin() ? JobView.forAdmin(job, reason) : JobView.of(job, reason);
  }

  private List<JobView> views(Caller caller, List<Job> jobs) {
    Map<String, String> reasons = queuedReasons.of(jobs);
    for (Job job : jobs) {
      // A held job (issue 37) waits for its dependencies, whatever the last pass saw.
      String waiting = commands.waitingReason(job);
      if (waiting != null) {
        reasons.put(job.id(), waiting);
      }
    }
    OwnJobs own = new OwnJobs(this.jobs, caller);
    return jobs.stream()
        .map(job -> JobView.listed(job, forCaller(caller, reasons.get(job.id()), own)))
        .toList();
  }

  /**
   * A submitter's {@code queuedReason} names no other owner, nor their job: an owner whose turn
   * came first is "another owner", and a reservation held by another owner's job is said as such,
   * without its id. Only that reason names a job, and few jobs wait on a reservation, so asking
   * whose it is costs a lookup per distinct job named, at most.
   */
  private String forCaller(Caller caller, String reason, OwnJobs own) {
    if (caller.isAdmin()) {
      return reason;
    }
    String told = QueuedReasons.withoutOtherOwner(reason, caller.name());
    return QueuedReasons.jobNamedIn(told)
        .filter(id -> !own.test(id))
        .map(id -> QueuedReasons.withoutJobId(told))
        .orElse(told);
  }
}
