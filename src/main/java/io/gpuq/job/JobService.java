package io.gpuq.job;

import io.gpuq.fairshare.Held;
import io.gpuq.fairshare.StartLimits;
import io.gpuq.reported.MetricsPage;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;
import java.util.function.ToLongFunction;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The job use cases over a {@link JobStore}: users submit, read, list and cancel, with their rights
 * checked here; the scheduler starts jobs and records how their workers ended, and the listeners
 * hear of each start and end once it is stored.
 */
public class JobService implements JobQueries {

  private static final Logger log = LoggerFactory.getLogger(JobService.class);

  private final JobStore store;
  private final Clock clock;
  private final JobIds ids;
  private final List<JobLifecycleListener> listeners;
  private final ToLongFunction<String> maxQueuedOf;
  private final int maxRequeues;

  /** With no limit on queued jobs: for tests of other things. */
  public JobService(JobStore store, Clock clock, List<JobLifecycleListener> listeners) {
    this(store, clock, listeners, owner -> Long.MAX_VALUE);
  }

  /**
   * @param maxQueuedOf each owner's {@code max-queued-jobs}
   */
  public JobService(
      JobStore store,
      Clock clock,
      List<JobLifecycleListener> listeners,
      ToLongFunction<String> maxQueuedOf) {
    this(store, clock, listeners, maxQueuedOf, 100);
  }

  /**
   * @param maxRequeues how often a job may go back to the queue by exiting with {@link
   *     AttemptEnd#REQUEUE_EXIT_CODE} ({@code gpuq.preemption.max-requeues})
   */
  public JobService(
      JobStore store,
      Clock clock,
      List<JobLifecycleListener> listeners,
      ToLongFunction<String> maxQueuedOf,
      int maxRequeues) {
    this.maxRequeues = maxRequeues;
    this.maxQueuedOf = maxQueuedOf;
    this.store = store;
    this.listeners = List.copyOf(listeners);
    this.clock = clock;
    this.ids = new JobIds(clock);
  }

  /**
   * Stores a new queued job, unless this caller already submitted one with the same idempotency
   * key: then that one is returned and nothing is created.
   *
   * @throws IdempotencyKeyReusedException when that earlier job was asked for with another request
   */
  public Submission submit(Caller caller, JobSpec spec, String idempotencyKey) {
    return submit(caller, spec, idempotencyKey, List.of(), false);
  }

  /**
   * {@link #submit(Caller, JobSpec, String)}, for a job that waits for {@code dependsOn} (issue
   * 37), stored {@code held} while one of them is not met yet.
   */
  public Submission submit(
      Caller caller,
      JobSpec spec,
      String idempotencyKey,
      List<Dependency> dependsOn,
      boolean held) {
    return submit(caller, spec, idempotencyKey, dependsOn, held, List.of());
  }

  /**
   * {@link #submit(Caller, JobSpec, String, List, boolean)}, with the targets its events are sent
   * to (issue 37), stored with the job.
   */
  public Submission submit(
      Caller caller,
      JobSpec spec,
      String idempotencyKey,
      List<Dependency> dependsOn,
      boolean held,
      List<NotifyTarget> notify) {
    if (idempotencyKey != null) {
      Optional<Job> earlier = store.findByKey(caller.name(), idempotencyKey);
      if (earlier.isPresent()) {
        return retried(earlier.get(), spec, dependsOn);
      }
    }
    try {
      Job job =
          store.submit(
              new NewJob(
                  ids.next(),
                  caller.name(),
                  spec,
                  idempotencyKey,
                  null,
                  clock.instant(),
                  dependsOn,
                  held,
                  notify),
              maxQueuedOf.applyAsLong(caller.name()));
      return new Submission(job, true);
    } catch (IdempotencyKeyTakenException e) {
      // Two requests with one key raced; exactly one of them got in.
      return store
          .findByKey(caller.name(), idempotencyKey)
          .map(job -> retried(job, spec, dependsOn))
          .orElseThrow(() -> e);
    }
  }

  /**
   * A retry is the same request: as the job stored it, after validation's defaults, and waiting for
   * the same dependencies (issue 37).
   */
  private static Submission retried(Job earlier, JobSpec spec, List<Dependency> dependsOn) {
    if (!earlier.spec().equals(spec) || !earlier.dependsOn().equals(dependsOn)) {
      throw new IdempotencyKeyReusedException(earlier.id());
    }
    return new Submission(earlier, false);
  }

  @Override
  public Job get(Caller caller, String id) {
    return accessible(caller, id);
  }

  @Override
  public JobPage list(
      Caller caller, JobState state, Map<String, String> labels, String beforeId, int limit) {
    return store.page(
        new JobFilter(caller.isAdmin() ? null : caller.name(), state, labels, beforeId, limit));
  }

  /**
   * Cancels a queued or running job. The cancel is stored; the node that runs the job's worker
   * stops it when it sees that. On this node, {@code stopWorker} stops it at once.
   */
  public Job cancel(Caller caller, String id, Consumer<Job> stopWorker) {
    accessible(caller, id);
    JobState from = store.cancel(id, clock.instant());
    Job cancelled = get(caller, id);
    if (from == JobState.RUNNING) {
      stopWorker.accept(cancelled);
    }
    return cancelled;
  }

  /**
   * Prunes a running trial for its external sweep's driver (an Optuna pruner said so): stored as
   * the sweep's own rule stores it, then, on this node, {@code stopWorker} stops it at once. A
   * trial that does not run (queued, or ended) is left as it is and answered as it is.
   */
  public Job prune(Caller caller, String id, String why, Consumer<Job> stopWorker) {
    accessible(caller, id);
    boolean pruned = store.prune(id, why, clock.instant());
    Job job = get(caller, id);
    if (pruned) {
      stopWorker.accept(job);
    }
    return job;
  }

  /**
   * Releases a held job whose dependencies are all met (issue 37): from now on it is queued as any
   * other. False when it was no longer held (another node released or cancelled it first).
   */
  public boolean releaseHeld(String id) {
    return store.update(id, Job::release).orElse(false);
  }

  /**
   * Cancels a held job one of whose dependencies can no longer be met (issue 37), {@code why}
   * naming it. False when it was no longer held.
   */
  public boolean cancelUnmet(String id, String why) {
    return store.update(id, job -> job.cancelUnmet(why, clock.instant())).orElse(false);
  }

  /**
   * A page of the points a job's run reported ({@link JobStore#metricsPage}), for a caller who may
   * see the job.
   */
  @Override
  public MetricsPage metrics(Caller caller, String id, long after, int limit, long maxBytes) {
    accessible(caller, id);
    return store.metricsPage(id, after, limit, maxBytes);
  }

  private Job accessible(Caller caller, String id) {
    Job job = store.find(id).orElseThrow(() -> new JobNotFoundException(id));
    if (!caller.mayAccessJobOf(job.owner())) {
      throw new JobAccessDeniedException(id);
    }
    return job;
  }

  /** The head of the queue of CPU-only jobs, in scheduling order. */
  public List<QueuedJob> cpuQueueHead(int limit) {
    return store.queueHead(limit, 0).cpuOnly();
  }

  /** Both queue heads, read at once; a limit of 0 skips that read. */
  public QueueHead queueHead(int cpuOnlyLimit, int gpuLimit) {
    return store.queueHead(cpuOnlyLimit, gpuLimit);
  }

  /** The first queued jobs of every owner ({@link JobStore#queueHead(int, int, int, int)}). */
  public QueueHead queueHead(int cpuPerOwner, int cpuOnlyLimit, int gpuPerOwner, int gpuLimit) {
    return store.queueHead(cpuPerOwner, cpuOnlyLimit, gpuPerOwner, gpuLimit);
  }

  /** What the running jobs of each owner hold, over every node. */
  public Map<String, Held> heldByOwner() {
    return store.heldByOwner();
  }

  /** What the running jobs of each owner hold on this node. */
  public Map<String, Held> heldByOwnerOn(String node) {
    return store.heldByOwnerOn(node);
  }

  /** Marks a queued job as started with this placement; empty if it is no longer queued. */
  public Optional<ClaimedJob> markStarted(String id, JobPlacement placement) {
    return markStarted(Map.of(id, placement)).stream().findFirst();
  }

  /**
   * Claims several queued jobs at once, each with its placement ({@link JobStore#claim}); the jobs
   * another node claimed meanwhile are left out of the answer.
   */
  public List<ClaimedJob> markStarted(Map<String, JobPlacement> placements) {
    return markStarted(placements, StartLimits.NONE);
  }

  /**
   * {@link #markStarted(Map)}, leaving out the starts that would take their owner past a running
   * limit with what every node holds as of the claim.
   */
  public List<ClaimedJob> markStarted(Map<String, JobPlacement> placements, StartLimits limits) {
    if (placements.isEmpty()) {
      return List.of();
    }
    Instant now = clock.instant();
    List<ClaimedJob> started = store.claim(placements, now, limits);
    for (ClaimedJob job : started) {
      notify(l -> l.attemptStarted(job.id(), job.attempt(), job.createdAt(), job.queuedAt(), now));
    }
    return started;
  }

  private void notify(Consumer<JobLifecycleListener> event) {
    for (JobLifecycleListener listener : listeners) {
      try {
        event.accept(listener);
      } catch (RuntimeException e) {
        log.warn("job lifecycle listener {} failed", listener, e);
      }
    }
  }

  /**
   * Records the processes of workers just launched. They are committed with other workers' events
   * close in time; the future completes once they are.
   */
  public CompletableFuture<Void> recordWorkerProcesses(List<WorkerProcess> processes) {
    return CompletableFuture.allOf(
        processes.stream().map(store::recordProcess).toArray(CompletableFuture[]::new));
  }

  /**
   * Records how an attempt ended. A job cancelled meanwhile only keeps the exit code; a failure
   * with attempts left sends the job back to the queue.
   *
   * @param gpuMemoryCapBytes the largest budget a retry after a memory failure may ask for
   */
  public void recordAttemptEnd(
      String id, int attempt, AttemptOutcome outcome, long gpuMemoryCapBytes) {
    JobStore.await(recordAttemptEndLater(id, attempt, outcome, gpuMemoryCapBytes));
  }

  /**
   * Like {@link #recordAttemptEnd}, without waiting: ends recorded close together share a commit.
   * The future completes once this end is committed, with the job's state after it (null if it was
   * not this job's current attempt).
   */
  public CompletableFuture<JobState> recordAttemptEndLater(
      String id, int attempt, AttemptOutcome outcome, long gpuMemoryCapBytes) {
    return recordAttemptEndLater(id, attempt, outcome, gpuMemoryCapBytes, null);
  }

  /**
   * Like {@link #recordAttemptEndLater(String, int, AttemptOutcome, long)}, for an attempt that
   * ended at a known time: a worker that ended while gpuq was down ended when its exit file was
   * written, not when gpuq came back. A time after now counts as now.
   *
   * @param endedAt when it ended, or null for now
   */
  public CompletableFuture<JobState> recordAttemptEndLater(
      String id, int attempt, AttemptOutcome outcome, long gpuMemoryCapBytes, Instant endedAt) {
    Instant now = clock.instant();
    Instant at = endedAt == null || endedAt.isAfter(now) ? now : endedAt;
    return store
        .endAttempt(
            new AttemptEnd(
                id,
                attempt,
                outcome,
                gpuMemoryCapBytes,
                at,
                AttemptEnd.REQUEUE_EXIT_CODE,
                maxRequeues))
        .thenApply(
            after -> {
              if (after != null) {
                notify(l -> l.attemptEnded(id, attempt, outcome, after));
              }
              return after;
            });
  }

  /**
   * Preempts running jobs of this node so that a waiting job starts here (issue 35): all of them or
   * none, and only if none of them is being preempted already and no node holds the waiting job yet
   * ({@link JobStore#preemptFor}).
   */
  public boolean preemptFor(String servedJobId, String node, Map<String, Integer> victimAttempts) {
    return store.preemptFor(servedJobId, node, victimAttempts);
  }

  /**
   * Requeues a running job now, with its grace (issue 35: {@code POST /api/v1/jobs/{id}/requeue}):
   * its owner or an admin.
   *
   * @throws JobConflictException when it is not running, or is being preempted already
   */
  public Job requeue(Caller caller, String id, Consumer<Job> stopWorker) {
    accessible(caller, id);
    boolean marked =
        store
            .update(id, job -> job.markPreempting(job.attempt(), PreemptReason.MANUAL, null))
            .orElseThrow(() -> new JobNotFoundException(id));
    Job job = get(caller, id);
    if (!marked) {
      throw new JobConflictException(
          "job " + id + " is not running (" + job.state() + "), or is being requeued already");
    }
    stopWorker.accept(job);
    return job;
  }

  /** What became of this attempt that a worker on {@code node} runs. */
  public AttemptStanding standingOf(String id, int attempt, String node) {
    return store.standingOf(id, attempt, node);
  }

  /**
   * Declares every job running on a dead node LOST (requeued when it has attempts left).
   *
   * @return how many
   */
  public int declareLostOn(String node, String why) {
    int lost = 0;
    for (Job job : runningOn(node)) {
      JobState after =
          JobStore.await(store.declareLost(job.id(), job.attempt(), why, clock.instant()));
      if (after != null) {
        AttemptOutcome outcome = new AttemptOutcome(FailureReason.LOST, why, null);
        notify(l -> l.attemptEnded(job.id(), job.attempt(), outcome, after));
      }
      lost++;
    }
    // Cancelled or pruned while they ran there, their workers' ends never recorded (issue 34: such
    // a job finishes only when its last process is gone): their processes went with the node.
    Instant now = clock.instant();
    for (StoppedAttempt stopped : store.stoppedAttemptsOn(node, now)) {
      if (stopped.finishedAt() == null) {
        AttemptOutcome outcome = new AttemptOutcome(FailureReason.LOST, why, null);
        JobStore.await(
            store.endAttempt(new AttemptEnd(stopped.jobId(), stopped.attempt(), outcome, 0, now)));
      }
    }
    return lost;
  }

  /**
   * Attempts on this node that another node declared lost within {@code within}, and whose workers
   * may still run.
   */
  public List<LostAttempt> lostAttemptsOn(String node, Duration within) {
    return store.lostAttemptsOn(node, clock.instant().minus(within));
  }

  /**
   * Attempts on this node cancelled or pruned within {@code within} while their workers ran, and
   * whose workers' exits were not recorded: an earlier gpuq there may have died before stopping
   * them.
   */
  public List<StoppedAttempt> stoppedAttemptsOn(String node, Duration within) {
    return store.stoppedAttemptsOn(node, clock.instant().minus(within));
  }

  /** Jobs an earlier gpuq on this node left running. */
  public List<Job> runningOn(String node) {
    return store.runningOn(node);
  }

  /** The poller measured a new peak of the job's GPU memory. */
  public void observeGpuMemory(String id, long bytes) {
    store.observeGpuMemory(id, bytes);
  }

  /**
   * Which of these jobs have ended, read at once however many there are: log followers learn their
   * jobs' ends this way, not with a query each.
   */
  @Override
  public Set<String> endedAmong(Collection<String> ids) {
    return store.endedAmong(ids);
  }

  /** The most GPU memory an attempt was measured to use on one GPU, if it was measured. */
  public Optional<Long> peakGpuMemoryOf(String id, int attempt) {
    return store.peakGpuMemoryOf(id, attempt);
  }

  /** Jobs per state, for the {@code gpuq_jobs} gauge. */
  public Map<JobState, Long> countByState() {
    return store.countByState();
  }
}
