package io.gpuq.sweeprun;

import io.gpuq.fs.StorageGuard;
import io.gpuq.job.Caller;
import io.gpuq.job.FieldError;
import io.gpuq.job.InvalidJobRequestException;
import io.gpuq.job.Job;
import io.gpuq.job.JobIds;
import io.gpuq.job.JobRequest;
import io.gpuq.job.JobRequestValidator;
import io.gpuq.job.JobSpec;
import io.gpuq.job.JobState;
import io.gpuq.job.NewJob;
import io.gpuq.job.SubmitAdmission;
import io.gpuq.job.SweepTrial;
import io.gpuq.schedule.DependencyChecks;
import io.gpuq.schedule.JobCommands;
import io.gpuq.sweep.BestScope;
import io.gpuq.sweep.BestTrial;
import io.gpuq.sweep.ExternalTrials;
import io.gpuq.sweep.InvalidSweepException;
import io.gpuq.sweep.Sweep;
import io.gpuq.sweep.SweepAccessDeniedException;
import io.gpuq.sweep.SweepDefinition;
import io.gpuq.sweep.SweepKeyReusedException;
import io.gpuq.sweep.SweepKeyTakenException;
import io.gpuq.sweep.SweepMethod;
import io.gpuq.sweep.SweepNotFoundException;
import io.gpuq.sweep.SweepRequest;
import io.gpuq.sweep.SweepSize;
import io.gpuq.sweep.SweepState;
import io.gpuq.sweep.SweepStore;
import io.gpuq.sweep.SweepStore.SweepPage;
import io.gpuq.sweep.SweepStore.TrialPage;
import io.gpuq.sweep.SweepValidator;
import io.gpuq.sweep.TooManyUnfinishedSweepsException;
import io.gpuq.sweep.Trial;
import io.gpuq.sweep.TrialQuery;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.LongSupplier;
import java.util.function.ToLongFunction;

/**
 * The sweep use cases over a {@link SweepStore}: users create sweeps (validated, each trial's job
 * checked as a submitted job would be), read them with their trials, add trials to an external
 * sweep, close and cancel; rights and idempotent retries are checked here.
 */
public class SweepService {

  private final SweepStore sweeps;
  private final RecentDefinitions definitions =
      new RecentDefinitions(
          sweep -> SweepDefinitions.definitionOf(sweep.definitionJson(), sweep.seed()));
  private final JobRequestValidator jobValidator;
  private final SubmitAdmission admission;
  private final StorageGuard storage;
  private final JobCommands jobCommands;
  private final LongSupplier seeds;
  private final Clock clock;
  private final JobIds ids;
  private final int maxUnfinishedPerOwner;
  private ToLongFunction<String> maxQueuedOf = owner -> Long.MAX_VALUE;

  /** The default of {@code gpuq.sweeps.max-unfinished-per-owner}. */
  public static final int DEFAULT_MAX_UNFINISHED_PER_OWNER = 100;

  /**
   * @param storage checked for room before a sweep or a trial is stored
   * @param jobCommands told of the trials queued and of the running trials cancelled
   * @param seeds draws the seed of a random sweep that names none
   * @param maxUnfinishedPerOwner how many unfinished sweeps one owner may have: each adds series to
   *     the public metrics
   */
  public SweepService(
      SweepStore sweeps,
      JobRequestValidator jobValidator,
      SubmitAdmission admission,
      StorageGuard storage,
      JobCommands jobCommands,
      LongSupplier seeds,
      Clock clock,
      int maxUnfinishedPerOwner) {
    if (maxUnfinishedPerOwner < 1) {
      throw new IllegalArgumentException("gpuq.sweeps.max-unfinished-per-owner must be at least 1");
    }
    this.maxUnfinishedPerOwner = maxUnfinishedPerOwner;
    this.sweeps = sweeps;
    this.jobValidator = jobValidator;
    this.admission = admission;
    this.storage = storage;
    this.jobCommands = jobCommands;
    this.seeds = seeds;
    this.clock = clock;
    this.ids = new JobIds(clock);
  }

  /**
   * Each owner's {@code max-queued-jobs}, which a sweep's trials count against; without it, none.
   */
  public SweepService withMaxQueued(ToLongFunction<String> maxQueuedOf) {
    this.maxQueuedOf = maxQueuedOf;
    return this;
  }

  /**
   * Creates a sweep and its trials, unless this caller already created one with the same
   * idempotency key: then that one is returned and nothing is created.
   *
   * @throws InvalidSweepException naming the field of the first mistake found (of the sweep, or of
   *     the first trial whose job is invalid); nothing is stored
   * @throws SweepKeyReusedException when the key's earlier sweep was asked for with another body
   * @throws TooManyUnfinishedSweepsException when the caller has as many unfinished sweeps as
   *     allowed already; nothing is stored
   */
  public SweepCreation create(
      Caller caller, JobRequest template, SweepRequest request, String idempotencyKey) {
    return create(caller, template, request, idempotencyKey, List.of());
  }

  /** {@link #create(Caller, JobRequest, SweepRequest, String)}, sending its end (issue 37). */
  public SweepCreation create(
      Caller caller,
      JobRequest template,
      SweepRequest request,
      String idempotencyKey,
      List<JobRequest.Notify> notify) {
    // Before anything reads the database, which a full disk may have closed.
    storage.requireRoom();
    SweepCreation creation = created(caller, template, request, idempotencyKey, notify);
    if (creation.created()) {
      jobCommands.queued(creation.gpuTrials());
    }
    return creation;
  }

  private SweepCreation created(
      Caller caller,
      JobRequest template,
      SweepRequest request,
      String idempotencyKey,
      List<JobRequest.Notify> notify) {
    String definitionJson = SweepDefinitions.toJson(template, request);
    if (idempotencyKey != null) {
      Optional<Sweep> earlier = sweeps.findByKey(caller.name(), idempotencyKey);
      if (earlier.isPresent()) {
        return retried(earlier.get(), definitionJson);
      }
    }
    SweepDefinition definition = new SweepValidator(seeds).validate(request, template);
    // Every trial waits for the sweep's dependencies (issue 37), held until they are met.
    DependencyChecks.Checked dependsOn =
        jobCommands.checkDependencies(caller, template.dependsOn());
    List<io.gpuq.job.NotifyTarget> notifyTargets = jobCommands.checkSweepNotify(notify);
    // Before a trial is built: 1,000 copies of a large template are the heap's end.
    long parametersBytes = 0;
    for (Trial trial : definition.initialTrials()) {
      parametersBytes += utf8Bytes(trial.parametersJson());
    }
    checkSize(template, definition.initialTrials().size(), parametersBytes);
    // Checked before anything is written; two creations racing may both pass at the limit's edge,
    // which bounds the count all the same (by the owner's concurrent requests).
    long unfinished = sweeps.countUnfinished(caller.name());
    if (unfinished >= maxUnfinishedPerOwner) {
      throw new TooManyUnfinishedSweepsException(maxUnfinishedPerOwner, unfinished);
    }
    String id = ids.next();
    Instant now = clock.instant();
    List<NewJob> trials = new ArrayList<>();
    JobSpec first = null;
    for (Trial trial : definition.initialTrials()) {
      JobSpec spec = trialSpec(definition, id, trial);
      if (first == null) {
        // Trials differ only in command, working directory, variables and labels: what admission
        // looks at (resources, node selector, the owner's limits) is the template's, the same for
        // each.
        admission.check(caller.name(), spec);
        first = spec;
      }
      trials.add(trialJob(caller, id, trial, spec, now, dependsOn));
    }
    Sweep sweep =
        newSweep(
            caller, id, template, request, definition, definitionJson, idempotencyKey, trials, now);
    try {
      // The trials count as queued jobs of their owner, checked where they are inserted.
      sweeps.create(sweep, trials, maxQueuedOf.applyAsLong(caller.name()), notifyTargets);
    } catch (SweepKeyTakenException e) {
      // Two requests with one key raced; exactly one of them got in.
      return sweeps
          .findByKey(caller.name(), idempotencyKey)
          .map(earlier -> retried(earlier, definitionJson))
          .orElseThrow(() -> e);
    }
    return new SweepCreation(
        justCreated(sweep, trials.size()), true, first != null && first.gpus() > 0);
  }

  private static void checkSize(JobRequest template, int trials, long parametersBytes) {
    int labels = template.labels() == null ? 0 : template.labels().size();
    SweepSize.check(trials, utf8Bytes(SweepDefinitions.toJson(template)), labels, parametersBytes);
  }

  private static long utf8Bytes(String text) {
    return text == null ? 0 : text.getBytes(java.nio.charset.StandardCharsets.UTF_8).length;
  }

  private static JobRequest template(Sweep sweep) {
    return SweepDefinitions.templateOf(sweep.definitionJson());
  }

  private SweepCreation retried(Sweep earlier, String definitionJson) {
    if (!earlier.definitionJson().equals(definitionJson)) {
      throw new SweepKeyReusedException(earlier.id());
    }
    return new SweepCreation(summaryOf(earlier), false, false);
  }

  private static Sweep newSweep(
      Caller caller,
      String id,
      JobRequest template,
      SweepRequest request,
      SweepDefinition definition,
      String definitionJson,
      String idempotencyKey,
      List<NewJob> trials,
      Instant now) {
    Long seed =
        definition.method() instanceof SweepMethod.RandomSearch random ? random.seed() : null;
    boolean external = definition.method() instanceof SweepMethod.External;
    return new Sweep(
        id,
        caller.name(),
        sweepName(template),
        definition.method().wireName(),
        definitionJson,
        definition.metric().orElse(null),
        SweepDefinitions.toJson(request.earlyStopping()),
        definition.maxConcurrent().isUnlimited() ? null : definition.maxConcurrent().max(),
        seed,
        trials.size(),
        !external,
        null,
        idempotencyKey,
        now,
        null);
  }

  /** The template's name, or the program's, as a job without a name gets. */
  private static String sweepName(JobRequest template) {
    if (template.name() != null && !template.name().isBlank()) {
      return template.name();
    }
    List<String> command = template.command();
    if (command == null || command.isEmpty() || command.get(0) == null) {
      return "sweep";
    }
    String program = command.get(0);
    return program.substring(program.lastIndexOf('/') + 1);
  }

  /**
   * The trial's job, validated as a submitted job. The same mistake is usually in every trial, so
   * the first invalid trial is reported, its fields named as the template's.
   */
  private JobSpec trialSpec(SweepDefinition definition, String sweepId, Trial trial) {
    try {
      return jobValidator.validate(definition.template().instantiate(sweepId, trial));
    } catch (InvalidJobRequestException e) {
      List<FieldError> errors =
          e.errors().stream()
              .map(
                  error ->
                      new FieldError(
                          error.field(),
                          "in trial "
                              + trial.number()
                              + " ("
                              + trial.parametersJson()
                              + "): "
                              + error.message()))
              .toList();
      throw new InvalidSweepException(errors);
    }
  }

  private NewJob trialJob(Caller caller, String sweepId, Trial trial, JobSpec spec, Instant now) {
    return trialJob(caller, sweepId, trial, spec, now, DependencyChecks.Checked.NOTHING);
  }

  private NewJob trialJob(
      Caller caller,
      String sweepId,
      Trial trial,
      JobSpec spec,
      Instant now,
      DependencyChecks.Checked dependsOn) {
    return new NewJob(
        ids.next(),
        caller.name(),
        spec,
        null,
        new SweepTrial(sweepId, trial.number(), trial.parametersJson()),
        now,
        dependsOn.dependsOn(),
        dependsOn.held(),
        // A trial has no notifications of its own: the sweep's are stored with the sweep (issue
        // 37).
        List.of());
  }

  public SweepSummary get(Caller caller, String id) {
    return get(caller, id, BestScope.LAST);
  }

  /** The sweep, its best trial in {@code scope}. */
  public SweepSummary get(Caller caller, String id, BestScope scope) {
    Sweep sweep = accessible(caller, id);
    return summaryOf(sweep, sweeps.trialCounts(sweep.id()), sweeps.best(sweep.id(), scope));
  }

  /** One page of sweeps, newest first: an admin's of everyone, a submitter's own. */
  public SweepSummaries list(Caller caller, String beforeId, int limit) {
    return list(caller, beforeId, limit, BestScope.LAST);
  }

  /** One page of sweeps, each with its best trial in {@code scope}. */
  public SweepSummaries list(Caller caller, String beforeId, int limit, BestScope scope) {
    SweepPage page = sweeps.page(caller.isAdmin() ? null : caller.name(), beforeId, limit);
    List<String> ids = page.items().stream().map(Sweep::id).toList();
    Map<String, Map<JobState, Long>> counts = sweeps.trialCounts(ids);
    Map<String, BestTrial> best = sweeps.best(ids, scope);
    List<SweepSummary> items =
        page.items().stream()
            .map(
                sweep ->
                    summaryOf(
                        sweep, counts.get(sweep.id()), Optional.ofNullable(best.get(sweep.id()))))
            .toList();
    return new SweepSummaries(items, page.nextBeforeId());
  }

  /** A page of summaries and where the next (older) one starts, null on the last. */
  public record SweepSummaries(List<SweepSummary> items, String nextBeforeId) {}

  /**
   * One page of the sweep's trials table.
   *
   * @param query its sweep's goal is filled in here
   */
  public TrialPage trials(Caller caller, TrialQuery query) {
    Sweep sweep = accessible(caller, query.sweepId());
    TrialQuery withGoal =
        new TrialQuery(
            query.sweepId(),
            sweep.metric() == null ? null : sweep.metric().goal(),
            query.order(),
            query.state(),
            query.after(),
            query.limit(),
            query.scope());
    return sweeps.trials(withGoal);
  }

  /**
   * Adds a trial to an external sweep, checked against its declared parameters and validated as a
   * job.
   *
   * @return the trial's job, queued
   */
  public Job addTrial(Caller caller, String sweepId, Map<String, Object> parameters) {
    storage.requireRoom();
    Job trial = added(caller, sweepId, parameters);
    jobCommands.queued(trial.gpus() > 0);
    return trial;
  }

  private Job added(Caller caller, String sweepId, Map<String, Object> parameters) {
    Sweep sweep = accessible(caller, sweepId);
    // Said before the definition is rebuilt; the store says it again under the row's lock.
    sweep.requireExternalToAddTrials();
    SweepDefinition definition = definitions.of(sweep);
    // A trial added later waits for the sweep's dependencies as its first ones did (issue 37).
    DependencyChecks.Checked dependsOn =
        jobCommands.checkDependencies(caller, template(sweep).dependsOn());
    Instant now = clock.instant();
    NewJob stored =
        sweeps.addTrial(
            sweepId,
            number -> {
              Trial trial = ExternalTrials.check(definition.space(), number, parameters);
              // The trials before it are bounded alike: their parameters are counted as its.
              checkSize(
                  template(sweep), number + 1, (number + 1L) * utf8Bytes(trial.parametersJson()));
              JobSpec spec = trialSpec(definition, sweepId, trial);
              admission.check(caller.name(), spec);
              return trialJob(caller, sweepId, trial, spec, now, dependsOn);
            },
            maxQueuedOf.applyAsLong(sweep.owner()));
    // As the store wrote it: nothing about a queued job is the database's own.
    return stored.job();
  }

  /**
   * Prunes a running trial of an external sweep: its driver's pruner (Optuna's should_prune) said
   * so. Stored and stopped as the sweep's own early-stopping rule prunes; a trial that has ended is
   * answered as it is.
   *
   * @param why in words, kept on the trial's attempt
   */
  public Job pruneTrial(Caller caller, String sweepId, String jobId, String why) {
    accessible(caller, sweepId).requireExternalToPrune();
    return jobCommands.prune(caller, sweepId, jobId, why);
  }

  /** No more trials will be added; the sweep is DONE when its last trial ends. */
  public SweepSummary close(Caller caller, String id) {
    accessible(caller, id);
    return summaryOf(sweeps.close(id, clock.instant()));
  }

  /**
   * Cancels the sweep and its queued and running trials, as a job's cancel does: stored, then the
   * running trials' workers stopped.
   *
   * @return the sweep, and the trials that were running
   */
  public SweepCancellation cancel(Caller caller, String id) {
    accessible(caller, id);
    List<String> running = sweeps.cancel(id, clock.instant());
    // Its rights were checked above: only the cancelled row is read again.
    SweepCancellation cancellation =
        new SweepCancellation(summaryOf(sweeps.find(id).orElseThrow()), running);
    // Workers on this node stop at once; other nodes' stop at their next heartbeat.
    jobCommands.cancelled(running);
    return cancellation;
  }

  /** A cancelled sweep, and the trials that were running when it was cancelled. */
  public record SweepCancellation(SweepSummary sweep, List<String> runningTrials) {}

  private Sweep accessible(Caller caller, String id) {
    Sweep sweep = sweeps.find(id).orElseThrow(() -> new SweepNotFoundException(id));
    if (!caller.mayAccessJobOf(sweep.owner())) {
      throw new SweepAccessDeniedException(id);
    }
    return sweep;
  }

  /** A sweep as just stored: every trial queued, none has reported; nothing to read back. */
  private static SweepSummary justCreated(Sweep sweep, int trials) {
    Map<JobState, Long> counts = new EnumMap<>(JobState.class);
    for (JobState state : JobState.ofJobs()) {
      counts.put(state, 0L);
    }
    counts.put(JobState.QUEUED, (long) trials);
    return new SweepSummary(sweep, sweep.state(counts), counts, Optional.empty());
  }

  private SweepSummary summaryOf(Sweep sweep) {
    return summaryOf(sweep, sweeps.trialCounts(sweep.id()), sweeps.best(sweep.id()));
  }

  private SweepSummary summaryOf(
      Sweep sweep, Map<JobState, Long> counts, Optional<BestTrial> best) {
    SweepState state = sweep.state(counts);
    Sweep shown = sweep;
    if (state == SweepState.DONE && sweep.finishedAt() == null) {
      // Seen done before the duty stamped it: stamped now, so that the view shows its end.
      shown = sweeps.stampFinished(sweep.id(), clock.instant()).orElse(sweep);
    }
    return new SweepSummary(shown, state, counts, best);
  }
}
