package io.gpuq.api;

import io.gpuq.job.Caller;
import io.gpuq.job.FieldError;
import io.gpuq.job.InvalidJobRequestException;
import io.gpuq.job.Job;
import io.gpuq.job.JobState;
import io.gpuq.sweep.BestScope;
import io.gpuq.sweep.SweepStore.TrialPage;
import io.gpuq.sweep.TrialCursor;
import io.gpuq.sweep.TrialOrder;
import io.gpuq.sweep.TrialQuery;
import io.gpuq.sweeprun.SweepCreation;
import io.gpuq.sweeprun.SweepService;
import io.gpuq.sweeprun.SweepService.SweepSummaries;
import io.gpuq.text.UserText;
import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.Parameter;
import io.swagger.v3.oas.annotations.media.Schema;
import io.swagger.v3.oas.annotations.responses.ApiResponse;
import io.swagger.v3.oas.annotations.tags.Tag;
import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestHeader;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

@RestController
@RequestMapping("/api/v1/sweeps")
@Tag(name = "sweeps", description = "Many trials of one command, each a job with its parameters")
@ApiResponse(responseCode = "403", description = "another user's sweep")
@ApiResponse(responseCode = "404", description = "no such sweep")
public class SweepController {

  /** The body of {@code POST /{id}/trials}: the new trial's parameters. */
  @Schema(name = "NewTrial")
  public record NewTrialBody(Map<String, Object> parameters) {}

  /** The scope parameter of a sweep and of the sweep listing: which trial is the best. */
  private static final String BEST_SCOPE_DOC =
      "which value makes the best trial: last (the default: the completed trial with the best"
          + " final value, as Optuna's best_trial) or all (the best value of any trial at any"
          + " step)";

  private final SweepService sweeps;

  public SweepController(SweepService sweeps) {
    this.sweeps = sweeps;
  }

  @PostMapping(consumes = MediaType.APPLICATION_JSON_VALUE)
  @Operation(
      summary = "Create a sweep",
      description = "Its trials are created with it, in one transaction, as queued jobs.")
  @ApiResponse(responseCode = "201", description = "created; Location names the sweep")
  @ApiResponse(
      responseCode = "200",
      description = "an earlier request with this Idempotency-Key created it")
  @ApiResponse(
      responseCode = "400",
      description = "invalid request; `errors` names each field; nothing is stored")
  @ApiResponse(
      responseCode = "422",
      description =
          "the trials can never fit on this node's GPUs, or the Idempotency-Key was used before"
              + " with a different request")
  @ApiResponse(responseCode = "507", description = SharedAnswers.NO_ROOM)
  @ApiResponse(
      responseCode = "429",
      description =
          "the caller has gpuq.sweeps.max-unfinished-per-owner unfinished sweeps already (limit and"
              + " unfinished in the problem), or the trials would take its queued jobs past its"
              + " token's max-queued-jobs (max, queued and requested); nothing was stored")
  public ResponseEntity<SweepView> create(
      Caller caller,
      @Parameter(description = "a repeated POST with the same key returns the first sweep (200)")
          @RequestHeader(value = "Idempotency-Key", required = false)
          String idempotencyKey,
      @RequestBody SweepBody body) {
    IdempotencyKeys.check(idempotencyKey);
    if (body == null) {
      throw new InvalidJobRequestException("", "a JSON object describing the sweep is required");
    }
    SweepCreation creation =
        sweeps.create(caller, body.template(), body.sweep(), idempotencyKey, body.notifications());
    SweepView view = SweepView.of(creation.sweep());
    return IdempotencyKeys.answer(creation.created(), view, "/api/v1/sweeps/" + view.id());
  }

  @GetMapping
  @Operation(summary = "List sweeps, newest first (admins see all, submitters their own)")
  @ApiResponse(responseCode = "400", description = "bad limit or cursor")
  public SweepListView list(
      Caller caller,
      @Parameter(description = PageSizes.LIMIT_DOC) @RequestParam(required = false) Integer limit,
      @Parameter(description = "nextCursor of the previous page") @RequestParam(required = false)
          String cursor,
      @Parameter(description = BEST_SCOPE_DOC) @RequestParam(required = false) String scope) {
    List<FieldError> errors = new ArrayList<>();
    int pageSize = PageSizes.of(limit, errors);
    String beforeId = IdCursors.decode(cursor, errors);
    BestScope bestScope = scopeOf(scope, errors);
    if (!errors.isEmpty()) {
      throw new InvalidJobRequestException(errors);
    }
    SweepSummaries page = sweeps.list(caller, beforeId, pageSize, bestScope);
    return new SweepListView(
        page.items().stream().map(SweepView::of).toList(), IdCursors.encode(page.nextBeforeId()));
  }

  @GetMapping("/{id}")
  @Operation(summary = "Get a sweep: its trials per state and its best trial")
  @ApiResponse(responseCode = "400", description = "bad scope")
  public SweepView get(
      Caller caller,
      @PathVariable String id,
      @Parameter(description = BEST_SCOPE_DOC) @RequestParam(required = false) String scope) {
    List<FieldError> errors = new ArrayList<>();
    BestScope bestScope = scopeOf(scope, errors);
    if (!errors.isEmpty()) {
      throw new InvalidJobRequestException(errors);
    }
    return SweepView.of(sweeps.get(caller, id, bestScope));
  }

  /** The scope a request names; {@link BestScope#LAST} when it names none. */
  private static BestScope scopeOf(String scope, List<FieldError> errors) {
    if (scope == null) {
      return BestScope.LAST;
    }
    Optional<BestScope> named = BestScope.fromWire(scope);
    if (named.isEmpty()) {
      errors.add(
          new FieldError(
              "scope", "unknown scope \"" + UserText.echo(scope) + "\"; use last or all"));
      return BestScope.LAST;
    }
    return named.get();
  }

  @GetMapping("/{id}/trials")
  @Operation(summary = "The sweep's trials table: parameters, state, values of the metric, step")
  @ApiResponse(responseCode = "400", description = "bad order, state, limit or cursor")
  public TrialListView trials(
      Caller caller,
      @PathVariable String id,
      @Parameter(
              description =
                  "metric (the best first, whatever the goal), -metric (the worst first) or"
                      + " created (by trial number, the default); trials without a value come"
                      + " last")
          @RequestParam(required = false)
          String order,
      @Parameter(description = "only trials in this state") @RequestParam(required = false)
          String state,
      @Parameter(description = PageSizes.LIMIT_DOC) @RequestParam(required = false) Integer limit,
      @Parameter(description = "nextCursor of the previous page") @RequestParam(required = false)
          String cursor,
      @Parameter(
              description =
                  "which value metric and -metric order by: last (the default: each trial's last"
                      + " reported value) or all (its best at any step)")
          @RequestParam(required = false)
          String scope) {
    List<FieldError> errors = new ArrayList<>();
    BestScope bestScope = scopeOf(scope, errors);
    TrialOrder trialOrder = TrialOrder.CREATED;
    if (order != null) {
      trialOrder = TrialOrder.fromWire(order).orElse(null);
      if (trialOrder == null) {
        errors.add(
            new FieldError(
                "order",
                "unknown order \"" + UserText.echo(order) + "\"; use metric, -metric or created"));
      }
    }
    JobState stateFilter = JobController.parseState(state, errors);
    int pageSize = PageSizes.of(limit, errors);
    TrialCursor after = null;
    if (cursor != null) {
      after = TrialCursor.decode(cursor).orElse(null);
      if (after == null) {
        errors.add(new FieldError("cursor", "is not a cursor this API returned"));
      }
    }
    if (!errors.isEmpty()) {
      throw new InvalidJobRequestException(errors);
    }
    TrialPage page =
        sweeps.trials(
            caller, new TrialQuery(id, null, trialOrder, stateFilter, after, pageSize, bestScope));
    return new TrialListView(
        page.items().stream().map(TrialListView.TrialView::of).toList(),
        page.next() == null ? null : page.next().encode());
  }

  @PostMapping(value = "/{id}/trials", consumes = MediaType.APPLICATION_JSON_VALUE)
  @Operation(
      summary = "Add a trial to an external sweep",
      description = "Its parameters carry every name the sweep declares, each within its bounds.")
  @ApiResponse(responseCode = "201", description = "the trial's job; Location names it")
  @ApiResponse(
      responseCode = "400",
      description = "a parameter missing, undeclared or out of bounds; nothing is stored")
  @ApiResponse(
      responseCode = "409",
      description = "the sweep is not external, or closed, cancelled or full")
  @ApiResponse(responseCode = "429", description = SharedAnswers.TOO_MANY_QUEUED)
  @ApiResponse(responseCode = "507", description = SharedAnswers.NO_ROOM)
  public ResponseEntity<JobView> addTrial(
      Caller caller, @PathVariable String id, @RequestBody NewTrialBody body) {
    Job trial = sweeps.addTrial(caller, id, body == null ? null : body.parameters());
    return ResponseEntity.created(URI.create("/api/v1/jobs/" + trial.id())).body(JobView.of(trial));
  }

  /** Why a driver prunes a trial, in its words (optional). */
  public record PruneBody(String reason) {}

  @PostMapping("/{id}/trials/{jobId}/prune")
  @Operation(
      summary = "Prune a running trial of an external sweep (issue 38)",
      description =
          "Its driver's pruner (Optuna's trial.should_prune()) stopped it: it becomes PRUNED and"
              + " its process tree is stopped as a cancel stops it. A trial that has already"
              + " ended is answered as it is.")
  @ApiResponse(responseCode = "404", description = "no such sweep, or the job is not its trial")
  @ApiResponse(responseCode = "409", description = "the sweep is not external")
  public JobView pruneTrial(
      Caller caller,
      @PathVariable String id,
      @PathVariable String jobId,
      @RequestBody(required = false) PruneBody body) {
    String reason =
        body == null || body.reason() == null
            ? ""
            : body.reason().replaceAll("\\p{Cntrl}", " ").strip();
    if (reason.length() > 200) {
      reason = reason.substring(0, 200);
    }
    String why = "pruned by its sweep's driver" + (reason.isEmpty() ? "" : ": " + reason);
    return JobView.of(sweeps.pruneTrial(caller, id, jobId, why));
  }

  @PostMapping("/{id}/close")
  @Operation(
      summary = "Close an external sweep",
      description = "No more trials will be added; it is DONE when its last trial ends.")
  @ApiResponse(responseCode = "409", description = "the sweep is not external, or was cancelled")
  public SweepView close(Caller caller, @PathVariable String id) {
    return SweepView.of(sweeps.close(caller, id));
  }

  @PostMapping("/{id}/cancel")
  @Operation(
      summary = "Cancel a sweep",
      description =
          "Its queued trials are cancelled at once, its running trials' process trees stopped"
              + " as a job's cancel stops them.")
  @ApiResponse(responseCode = "409", description = "the sweep has already finished")
  public SweepView cancel(Caller caller, @PathVariable String id) {
    return SweepView.of(sweeps.cancel(caller, id).sweep());
  }
}
