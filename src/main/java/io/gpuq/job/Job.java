package io.gpuq.job;

import io.gpuq.job.JobTransition.AttemptEffect;
import io.gpuq.job.JobTransition.Change;
import io.gpuq.job.JobTransition.JobField;
import io.gpuq.placement.MemoryDemand;
import io.gpuq.reported.MetricsJson;
import io.gpuq.reported.ReportedMetrics;
import io.gpuq.text.Cpus;
import java.math.BigDecimal;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A training run and its history. Its state changes only through the intention-named methods below,
 * each of which asks {@link JobTransition} whether the move is allowed. Plain Java: the storage
 * adapter maps it to the {@code jobs} table in {@code META-INF/orm.xml}.
 */
public class Job {

  private static final Logger log = LoggerFactory.getLogger(Job.class);
  public static final String CANCEL_MESSAGE = "cancelled by the user";

  /**
   * How many jobs' labels, or attempts, one statement loads. Not a whole page of 1,000: H2 checks
   * each row it reads against every value of an {@code in (?, ...)} list, so a list of 1,000 ids
   * cost a million comparisons per statement, most of a 1,000-job listing's time
   * (docs/benchmarks.md, "A million jobs"). Ten statements of 100 cost a tenth of that.
   */
  public static final int ASSOCIATION_BATCH = 100;

  private String id;

  private String owner;

  private String name;

  private JobState state;

  private FailureReason failureReason;

  private String failureMessage;
  private Integer exitCode;

  private int attempt;

  private List<String> command;

  private String workingDir;

  private Map<String, String> env;

  private Framework framework;

  private int gpus;

  // The budget the next (or running) attempt gets: the request, grown after memory failures.
  private Long gpuMemoryBytes;
  private Double gpuFraction;

  // The budget as submitted, never grown.
  private Long requestedGpuMemoryBytes;
  private Double requestedGpuFraction;

  // Cores and host memory (HostResources); the memory the next (or running) attempt gets, and as
  // submitted. A job stored before jobs could ask has 1 core and no host memory. Cores are exact
  // decimals (thousandths, V23): 1 or 0.25.
  private BigDecimal cpus = BigDecimal.ONE;
  private Long memoryBytes;
  private Long requestedMemoryBytes;

  private int priority;

  private Long timeoutMillis;

  private int maxAttempts;

  private double oomGrowth;

  // Preemption (issue 35): null grace and signal on a job stored before it (the defaults then).
  private boolean preemptible;
  private Long preemptGraceMillis;
  private StopSignal preemptSignal;
  private StopSignal timeoutSignal;
  private Long timeoutSignalBeforeMillis;

  // Attempts that ended PREEMPTED (a preemption, a manual requeue, the requeue exit code): they do
  // not count against maxAttempts.
  private int requeues;

  // While its running attempt is being preempted: why, and the waiting job it serves (fair share).
  private PreemptReason preemptReason;
  private String preemptedFor;

  // While queued: the node preempting jobs to start it there (issue 35).
  private String heldOn;

  private Map<String, String> labels = new HashMap<>();

  private String idempotencyKey;
  private String node;

  private Map<String, String> nodeSelector;

  // The modules a warm start imports once (issue 36); null for a cold start.
  private List<String> preload;

  private JobPlacement placement;

  private Long peakGpuMemoryBytes;

  private Instant createdAt;

  private Instant queuedAt;

  private Instant startedAt;
  private Instant finishedAt;

  // A sweep's trial: its sweep, number and parameters (JSON); all null for a job of its own.
  private String sweepId;
  private Integer trial;
  private String parameters;

  // What it waits for (issue 37), and whether it still waits: a held job stays QUEUED but no
  // scheduling pass reads it, until every dependency is met (released) or one never can be
  // (cancelled).
  private List<Dependency> dependsOn;

  private boolean held;

  // What the run reported (GPUQ_METRICS_FILE), written by the store's metrics reads, never by the
  // entity: the latest value of each metric (JSON), their step, and for a trial its sweep metric's
  // best value, with the metric's name read from the sweep.
  private String metricsLatest;

  private Long metricsStep;

  private Double metricBest;

  private String metricName;

  // Eager, as jobs are always shown with their labels and attempts: one extra query per
  // ASSOCIATION_BATCH jobs of a page, for those jobs only. Not SUBSELECT: it re-runs the page's
  // query without its limit, loading the associations of every job the filter matches (all
  // SUCCEEDED jobs for one page of them).
  private List<JobAttempt> attempts = new ArrayList<>();

  // Nullable, so that a new entity with its own id is persisted, not merged (no select first).
  private Long version;

  protected Job() {}

  /** A new job, queued for its first attempt. */
  public static Job submit(
      String id, String owner, JobSpec spec, String idempotencyKey, Instant now) {
    return submit(id, owner, spec, idempotencyKey, null, now);
  }

  /** A new job, queued for its first attempt; one of a sweep's trials when {@code trial} is set. */
  public static Job submit(
      String id, String owner, JobSpec spec, String idempotencyKey, SweepTrial trial, Instant now) {
    Job job = new Job();
    if (trial != null) {
      job.sweepId = trial.sweepId();
      job.trial = trial.number();
      job.parameters = trial.parametersJson();
    }
    job.id = id;
    job.owner = owner;
    job.name = spec.name();
    job.state = JobState.QUEUED;
    job.attempt = 1;
    job.command = spec.command();
    job.workingDir = spec.workingDir();
    job.env = spec.env();
    job.framework = spec.framework();
    job.gpus = spec.gpus();
    job.gpuMemoryBytes = spec.memory().bytesOrNull();
    job.gpuFraction = spec.memory().fractionOrNull();
    job.requestedGpuMemoryBytes = job.gpuMemoryBytes;
    job.requestedGpuFraction = job.gpuFraction;
    job.cpus = new BigDecimal(spec.host().cpus().toString());
    job.memoryBytes = spec.host().memoryBytes();
    job.requestedMemoryBytes = job.memoryBytes;
    job.priority = spec.priority();
    job.timeoutMillis = spec.timeout() == null ? null : spec.timeout().toMillis();
    job.maxAttempts = spec.maxAttempts();
    job.oomGrowth = spec.oomGrowth();
    job.preemptible = spec.preemption().preemptible();
    job.preemptGraceMillis = spec.preemption().grace().toMillis();
    job.preemptSignal = spec.preemption().signal();
    if (spec.timeoutSignal() != null) {
      job.timeoutSignal = spec.timeoutSignal().signal();
      job.timeoutSignalBeforeMillis = spec.timeoutSignal().before().toMillis();
    }
    job.labels = new HashMap<>(spec.labels());
    job.nodeSelector = spec.nodeSelector().isEmpty() ? null : spec.nodeSelector();
    job.preload = spec.preload().isEmpty() ? null : spec.preload();
    job.idempotencyKey = idempotencyKey;
    job.createdAt = now;
    job.queuedAt = now;
    return job;
  }

  /**
   * The job was placed and its worker is being launched. The scheduler's claims write the same
   * without loading the job: both follow {@link JobTransition#START}.
   */
  public void start(JobPlacement placement, Instant now) {
    apply(JobTransition.START, Change.start(placement, now));
  }

  /** The worker exited with code 0. */
  public void succeed(int exitCode, Instant now) {
    apply(JobTransition.SUCCEED, Change.end(exitCode, null, null, now));
  }

  /**
   * The attempt failed. With attempts left (and a failure worth retrying) the job goes back to the
   * queue, with a budget grown by {@code oomGrowth} after a GPU memory failure, or its host memory
   * after HOST_OUT_OF_MEMORY; otherwise it fails.
   *
   * @param gpuMemoryCapBytes the largest per-GPU budget a grown request may reach (the GPU's size)
   * @return the state the job is in now: {@code QUEUED} or {@code FAILED}
   */
  public JobState failAttempt(
      FailureReason reason, String message, Integer exitCode, long gpuMemoryCapBytes, Instant now) {
    Change change = Change.end(exitCode, reason, message, now);
    // Preempted attempts (requeues) do not count against maxAttempts (issue 35).
    if (attempt - requeues < maxAttempts && reason.isRetried()) {
      if (reason.isMemoryFailure()) {
        growBudget(gpuMemoryCapBytes);
      }
      if (reason.isHostMemoryFailure() && memoryBytes != null) {
        // The job keeps what it asked for apart (requestedMemoryBytes); placement decides
        // whether the grown cap fits a node.
        memoryBytes = (long) Math.ceil(memoryBytes * oomGrowth);
      }
      apply(JobTransition.REQUEUE_FOR_RETRY, change);
    } else {
      apply(JobTransition.FAIL, change);
    }
    return state;
  }

  private void growBudget(long capBytes) {
    if (gpuMemoryBytes != null) {
      long grown = (long) Math.ceil(gpuMemoryBytes * oomGrowth);
      gpuMemoryBytes = capBytes > 0 ? Math.min(grown, capBytes) : grown;
    } else if (gpuFraction != null) {
      gpuFraction = Math.min(1.0, gpuFraction * oomGrowth);
    }
  }

  /**
   * The user cancelled the job. A queued one finishes now; a running one's worker is being stopped,
   * and it finishes when its last process is gone ({@link #endAttempt}).
   */
  public void cancel(Instant now) {
    JobTransition cancel =
        state == JobState.RUNNING ? JobTransition.CANCEL_RUNNING : JobTransition.CANCEL;
    apply(cancel, Change.end(null, null, CANCEL_MESSAGE, now));
  }

  /**
   * Makes this new job wait for its dependencies (issue 37); {@code held} while one of them has not
   * been met yet.
   */
  void dependOn(List<Dependency> dependencies, boolean held) {
    this.dependsOn = dependencies.isEmpty() ? null : List.copyOf(dependencies);
    this.held = held && !dependencies.isEmpty();
  }

  /**
   * Every dependency of this held job is met: it is queued as any other from now on. False when it
   * was not held, or no longer queued (released or cancelled by another node first).
   */
  public boolean release() {
    if (!held || state != JobState.QUEUED) {
      return false;
    }
    held = false;
    return true;
  }

  /**
   * A dependency of this held job can no longer be met: it ends CANCELLED, {@code why} naming the
   * dependency. False when it was no longer held and queued.
   */
  public boolean cancelUnmet(String why, Instant now) {
    if (!held || state != JobState.QUEUED) {
      return false;
    }
    apply(JobTransition.CANCEL_UNMET, Change.end(null, null, why, now));
    return true;
  }

  /** What it waits for, or waited for; empty for a job with no dependencies. */
  public List<Dependency> dependsOn() {
    return dependsOn == null ? List.of() : dependsOn;
  }

  /** Whether it is queued but waits for a dependency: no pass reads it. */
  public boolean held() {
    return held;
  }

  /**
   * The sweep's early-stopping rule stopped this running trial; its worker is being stopped.
   *
   * @param why in words and numbers, kept on the job and its attempt: "stopped by the sweep's
   *     early-stopping rule (median) at step 40"
   */
  public void prune(String why, Instant now) {
    apply(JobTransition.PRUNE, Change.end(null, null, why, now));
  }

  /**
   * Records how an attempt ended: a success or failure of the running attempt moves the job; the
   * exit of a worker cancelled or pruned meanwhile is kept on its attempt; any other end (an older
   * attempt, or one declared lost and given up meanwhile) changes nothing.
   *
   * @return the job's state after it, or null when it was not the job's current attempt
   */
  public JobState endAttempt(AttemptEnd end) {
    if (end.attempt() != attempt) {
      log.warn(
          "ignoring the end of attempt {} of job {}: not its current attempt", end.attempt(), id);
      return null;
    }
    AttemptOutcome outcome = end.outcome();
    switch (state) {
      case CANCELLED, PRUNED -> recordStoppedEnd(outcome.exitCode(), end.endedAt());
      case RUNNING -> {
        if (preemptReason != null
            || (end.requeueExitCode() != null
                && end.requeueExitCode().equals(outcome.exitCode())
                && requeues < end.maxRequeues())) {
          PreemptReason why = preemptReason != null ? preemptReason : PreemptReason.REQUEUE_EXIT;
          requeueAfterPreemption(why, outcome.exitCode(), end.endedAt());
          log.info("job {} attempt {} preempted ({}); job is queued again", id, end.attempt(), why);
        } else if (outcome.isSuccess()) {
          succeed(outcome.exitCode(), end.endedAt());
        } else {
          JobState next =
              failAttempt(
                  outcome.failureReason(),
                  outcome.message(),
                  outcome.exitCode(),
                  end.gpuMemoryCapBytes(),
                  end.endedAt());
          log.info(
              "job {} attempt {} failed ({}: {}); job is now {}",
              id,
              end.attempt(),
              outcome.failureReason(),
              outcome.message(),
              next);
        }
      }
      default ->
          log.info(
              "attempt {} of job {} ended after the job became {}; nothing recorded",
              end.attempt(),
              id,
              state);
    }
    return state;
  }

  /**
   * The worker of a job already cancelled (or pruned) is gone, its last process too: the job and
   * its attempt finish now (issue 34: not at the cancel, while its processes still ran and held its
   * place), keeping its exit code. An end already written stays.
   */
  public void recordStoppedEnd(Integer exitCode, Instant endedAt) {
    attemptNumbered(attempt)
        .ifPresent(
            a -> {
              a.recordExitCode(exitCode);
              if (a.finishedAt() == null) {
                a.set(JobTransition.AttemptField.FINISHED_AT, endedAt);
              }
            });
    this.exitCode = exitCode;
    if (finishedAt == null) {
      finishedAt = endedAt;
    }
  }

  /**
   * Marks the running attempt as preempted (issue 35): its worker is being stopped with its signal,
   * and whatever its exit, its end requeues the job ({@link
   * JobTransition#REQUEUE_AFTER_PREEMPTION}).
   *
   * @param servedJobId the waiting job its place goes to; null for a manual requeue
   * @return false when it is not running that attempt or is already being preempted
   */
  public boolean markPreempting(int attempt, PreemptReason reason, String servedJobId) {
    if (state != JobState.RUNNING || this.attempt != attempt || preemptReason != null) {
      return false;
    }
    preemptReason = reason;
    preemptedFor = servedJobId;
    return true;
  }

  /** A queued job held for the place a preemption on {@code node} frees (issue 35). */
  public boolean holdOn(String node) {
    if (state != JobState.QUEUED) {
      return false;
    }
    heldOn = node;
    return true;
  }

  private void requeueAfterPreemption(PreemptReason why, Integer exitCode, Instant now) {
    String words =
        switch (why) {
          case FAIR_SHARE -> "preempted for another owner's job (fair share)";
          case REQUEUE_EXIT -> "requeued by its exit code " + exitCode;
          case MANUAL -> "requeued on request";
        };
    int ended = attempt;
    String served = preemptedFor;
    apply(JobTransition.REQUEUE_AFTER_PREEMPTION, Change.end(exitCode, null, words, now));
    // The transition clears the job's mark; the attempt keeps whom it served, for admins.
    if (served != null) {
      attempts.stream()
          .filter(a -> a.attempt() == ended)
          .findFirst()
          .ifPresent(a -> a.recordPreemptedFor(served));
    }
  }

  /** Why its running attempt is being preempted, if it is (issue 35). */
  public Optional<PreemptReason> preemptReason() {
    return Optional.ofNullable(preemptReason);
  }

  /** The waiting job a fair-share preemption of it serves; null otherwise. */
  public String preemptedFor() {
    return preemptedFor;
  }

  /** The node preempting jobs for this queued job; null for none. */
  public String heldOn() {
    return heldOn;
  }

  /** Records an attempt's worker process, whether or not the attempt is still open. */
  void recordProcess(WorkerProcess process) {
    attemptNumbered(process.attempt())
        .ifPresent(a -> a.recordProcess(process.pid(), process.startTicks(), process.cores()));
  }

  /** The poller measured this much GPU memory in use by the job's process tree. */
  public void observeGpuMemory(long bytes) {
    if (peakGpuMemoryBytes == null || bytes > peakGpuMemoryBytes) {
      peakGpuMemoryBytes = bytes;
    }
    if (!attempts.isEmpty()) {
      currentAttempt().observeGpuMemory(bytes);
    }
  }

  /** Moves the job as {@code transition} describes: its state, its fields, its attempt. */
  private void apply(JobTransition transition, Change change) {
    JobState from = state;
    JobState to;
    try {
      to = transition.applyTo(id, from);
    } catch (IllegalTransitionException e) {
      log.error("BUG: {}; the job is left as it was", e.getMessage(), e);
      throw e;
    }
    // Found before anything changes: a job without the attempt to end is left as it was.
    Optional<JobAttempt> toEnd =
        switch (transition.attemptEffect()) {
          case OPENS -> Optional.empty();
          case ENDS -> Optional.of(currentAttempt());
          case ENDS_IF_OPEN -> attemptNumbered(attempt).filter(JobAttempt::isOpen);
        };
    state = to;
    // The attempt first: ending it reads the attempt number that a requeue then raises.
    if (transition.attemptEffect() == AttemptEffect.OPENS) {
      JobAttempt opened = new JobAttempt(this, attempt);
      transition
          .attemptWrites()
          .forEach((field, value) -> opened.set(field, change.valueOf(value, transition, attempt)));
      attempts.add(opened);
    }
    toEnd.ifPresent(ended -> end(ended, transition, change));
    int current = attempt;
    transition
        .jobWrites()
        .forEach(
            (field, value) ->
                set(
                    field,
                    value == JobTransition.Value.INCREMENTED
                        ? incremented(field)
                        : change.valueOf(value, transition, current)));
  }

  private void end(JobAttempt ended, JobTransition transition, Change change) {
    transition
        .attemptWrites()
        .forEach((field, value) -> ended.set(field, change.valueOf(value, transition, attempt)));
  }

  private Object incremented(JobField field) {
    if (field != JobField.REQUEUES) {
      throw new IllegalArgumentException(field + " is not a count");
    }
    return requeues + 1;
  }

  private void set(JobField field, Object value) {
    switch (field) {
      case ATTEMPT -> attempt = (Integer) value;
      case PLACEMENT -> placement = (JobPlacement) value;
      case NODE -> node = (String) value;
      case STARTED_AT -> startedAt = (Instant) value;
      case QUEUED_AT -> queuedAt = (Instant) value;
      case FINISHED_AT -> finishedAt = (Instant) value;
      case FAILURE_REASON -> failureReason = (FailureReason) value;
      case FAILURE_MESSAGE -> failureMessage = (String) value;
      case EXIT_CODE -> exitCode = (Integer) value;
      case PEAK_GPU_MEMORY_BYTES -> peakGpuMemoryBytes = (Long) value;
      case REQUEUES -> requeues = (Integer) value;
      case PREEMPT_REASON -> preemptReason = (PreemptReason) value;
      case PREEMPTED_FOR -> preemptedFor = (String) value;
      case HELD_ON -> heldOn = (String) value;
    }
  }

  /** A copy that shares nothing mutable with this job: what an in-memory store hands out. */
  Job copy() {
    Job copy = new Job();
    copy.id = id;
    copy.owner = owner;
    copy.name = name;
    copy.state = state;
    copy.failureReason = failureReason;
    copy.failureMessage = failureMessage;
    copy.exitCode = exitCode;
    copy.attempt = attempt;
    copy.command = List.copyOf(command);
    copy.workingDir = workingDir;
    copy.env = Map.copyOf(env);
    copy.framework = framework;
    copy.gpus = gpus;
    copy.gpuMemoryBytes = gpuMemoryBytes;
    copy.gpuFraction = gpuFraction;
    copy.requestedGpuMemoryBytes = requestedGpuMemoryBytes;
    copy.requestedGpuFraction = requestedGpuFraction;
    copy.cpus = cpus;
    copy.memoryBytes = memoryBytes;
    copy.requestedMemoryBytes = requestedMemoryBytes;
    copy.priority = priority;
    copy.timeoutMillis = timeoutMillis;
    copy.maxAttempts = maxAttempts;
    copy.oomGrowth = oomGrowth;
    copy.preemptible = preemptible;
    copy.preemptGraceMillis = preemptGraceMillis;
    copy.preemptSignal = preemptSignal;
    copy.timeoutSignal = timeoutSignal;
    copy.timeoutSignalBeforeMillis = timeoutSignalBeforeMillis;
    copy.requeues = requeues;
    copy.preemptReason = preemptReason;
    copy.preemptedFor = preemptedFor;
    copy.heldOn = heldOn;
    copy.labels = new HashMap<>(labels);
    copy.idempotencyKey = idempotencyKey;
    copy.node = node;
    copy.nodeSelector = nodeSelector == null ? null : Map.copyOf(nodeSelector);
    copy.preload = preload == null ? null : List.copyOf(preload);
    copy.placement = placement;
    copy.peakGpuMemoryBytes = peakGpuMemoryBytes;
    copy.createdAt = createdAt;
    copy.queuedAt = queuedAt;
    copy.startedAt = startedAt;
    copy.finishedAt = finishedAt;
    copy.sweepId = sweepId;
    copy.trial = trial;
    copy.parameters = parameters;
    copy.dependsOn = dependsOn == null ? null : List.copyOf(dependsOn);
    copy.held = held;
    copy.metricsLatest = metricsLatest;
    copy.metricsStep = metricsStep;
    copy.metricBest = metricBest;
    copy.metricName = metricName;
    copy.attempts = new ArrayList<>();
    attempts.forEach(a -> copy.attempts.add(a.copyFor(copy)));
    copy.version = version;
    return copy;
  }

  private Optional<JobAttempt> attemptNumbered(int number) {
    return attempts.stream().filter(a -> a.attempt() == number).findFirst();
  }

  private JobAttempt currentAttempt() {
    JobAttempt last = attempts.isEmpty() ? null : attempts.get(attempts.size() - 1);
    if (last == null || last.attempt() != attempt) {
      throw new IllegalStateException("job " + id + " has no record of attempt " + attempt);
    }
    return last;
  }

  public String id() {
    return id;
  }

  public String owner() {
    return owner;
  }

  public String name() {
    return name;
  }

  public JobState state() {
    return state;
  }

  public FailureReason failureReason() {
    return failureReason;
  }

  public String failureMessage() {
    return failureMessage;
  }

  public Integer exitCode() {
    return exitCode;
  }

  public int attempt() {
    return attempt;
  }

  public List<String> command() {
    return command;
  }

  public String workingDir() {
    return workingDir;
  }

  public Map<String, String> env() {
    return env;
  }

  public Framework framework() {
    return framework;
  }

  public int gpus() {
    return gpus;
  }

  /** The budget per GPU in bytes that the running or next attempt gets, or null. */
  public Long gpuMemoryBytes() {
    return gpuMemoryBytes;
  }

  /** The budget per GPU as a fraction that the running or next attempt gets, or null. */
  public Double gpuFraction() {
    return gpuFraction;
  }

  /** The budget per GPU in bytes as submitted, before any growth; or null. */
  public Long requestedGpuMemoryBytes() {
    return hasRequestedBudget() ? requestedGpuMemoryBytes : gpuMemoryBytes;
  }

  /** The budget per GPU as a fraction as submitted, before any growth; or null. */
  public Double requestedGpuFraction() {
    return hasRequestedBudget() ? requestedGpuFraction : gpuFraction;
  }

  // A job stored by a gpuq that did not keep the request apart (another node of an older version
  // sharing the database) has only its current budget to show.
  private boolean hasRequestedBudget() {
    return requestedGpuMemoryBytes != null
        || requestedGpuFraction != null
        || (gpuMemoryBytes == null && gpuFraction == null);
  }

  /** The cores and host memory the running or next attempt gets. */
  public HostResources host() {
    return new HostResources(cpus(), memoryBytes);
  }

  private Cpus cpus() {
    return Cpus.exactly(cpus)
        .orElseThrow(() -> new IllegalStateException("job " + id + " has " + cpus + " cores"));
  }

  /** The host memory in bytes as submitted, before any growth; or null for none. */
  public Long requestedMemoryBytes() {
    return requestedMemoryBytes;
  }

  public int priority() {
    return priority;
  }

  public Duration timeout() {
    return timeoutMillis == null ? null : Duration.ofMillis(timeoutMillis);
  }

  public int maxAttempts() {
    return maxAttempts;
  }

  public double oomGrowth() {
    return oomGrowth;
  }

  public Map<String, String> labels() {
    return Collections.unmodifiableMap(labels);
  }

  /** Labels a node must carry to run this job; empty for any node. */
  public Map<String, String> nodeSelector() {
    return nodeSelector == null ? Map.of() : nodeSelector;
  }

  /** The modules its warm start imports once (issue 36); empty for a cold start. */
  public List<String> preload() {
    return preload == null ? List.of() : preload;
  }

  /** The request as this job stored it, for telling a retried submission from another. */
  public JobSpec spec() {
    return new JobSpec(
        name,
        command,
        workingDir,
        env == null ? Map.of() : env,
        framework,
        gpus,
        MemoryDemand.of(gpuMemoryBytes, gpuFraction),
        new HostResources(cpus(), requestedMemoryBytes),
        priority,
        timeout(),
        maxAttempts,
        oomGrowth,
        labels(),
        nodeSelector(),
        preload(),
        preemption(),
        timeoutSignal().orElse(null));
  }

  /** Whether and how it may be preempted (issue 35). */
  public Preemption preemption() {
    return new Preemption(
        preemptible,
        preemptGraceMillis == null
            ? Preemption.DEFAULT_GRACE
            : Duration.ofMillis(preemptGraceMillis),
        preemptSignal == null ? StopSignal.TERM : preemptSignal);
  }

  /** The warning before its timeout, if it asked for one (issue 35). */
  public Optional<TimeoutSignal> timeoutSignal() {
    return timeoutSignal == null || timeoutSignalBeforeMillis == null
        ? Optional.empty()
        : Optional.of(
            new TimeoutSignal(timeoutSignal, Duration.ofMillis(timeoutSignalBeforeMillis)));
  }

  /** How many of its attempts ended PREEMPTED so far. */
  public int requeues() {
    return requeues;
  }

  /** The sweep this job is a trial of, if it is one. */
  public Optional<SweepTrial> sweepTrial() {
    return sweepId == null
        ? Optional.empty()
        : Optional.of(new SweepTrial(sweepId, trial, parameters));
  }

  /** What an in-memory store's metrics read stores; a database store writes the columns. */
  void recordMetrics(String latestJson, Long step, Double best, String sweepMetricName) {
    metricsLatest = latestJson;
    metricsStep = step;
    metricBest = best;
    metricName = sweepMetricName;
  }

  /**
   * What the run reported last, shown in its view; empty when it reported nothing.
   *
   * @return the latest value of each metric (null for NaN or infinite), their step, and for a trial
   *     its sweep metric's best value (null when none was reported)
   */
  public Optional<ReportedMetrics> reportedMetrics() {
    if (metricsLatest == null) {
      return Optional.empty();
    }
    return Optional.of(
        new ReportedMetrics(
            MetricsJson.readValues(metricsLatest),
            metricsStep,
            sweepId == null || metricName == null ? null : metricName,
            metricBest));
  }

  public String idempotencyKey() {
    return idempotencyKey;
  }

  public String node() {
    return node;
  }

  public JobPlacement placement() {
    return placement;
  }

  public Long peakGpuMemoryBytes() {
    return peakGpuMemoryBytes;
  }

  public Instant createdAt() {
    return createdAt;
  }

  public Instant queuedAt() {
    return queuedAt;
  }

  public Instant startedAt() {
    return startedAt;
  }

  public Instant finishedAt() {
    return finishedAt;
  }

  public List<JobAttempt> attempts() {
    return Collections.unmodifiableList(attempts);
  }
}
