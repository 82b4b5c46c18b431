package io.gpuq.job;

import io.gpuq.security.Caller;
import jakarta.annotation.PreDestroy;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.Collection;
import java.util.EnumMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.dao.DataIntegrityViolationException;
import org.springframework.dao.OptimisticLockingFailureException;
import org.springframework.data.domain.Limit;
import org.springframework.stereotype.Service;
import org.springframework.transaction.support.TransactionCallback;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * The job use cases, each in its own transaction. Users submit, read, list and cancel; the
 * scheduler starts jobs and records how their workers ended.
 */
@Service
public class JobService {

  private static final Logger log = LoggerFactory.getLogger(JobService.class);
  private static final int MAX_CONFLICT_RETRIES = 5;
  private static final int MAX_BATCH = 64;
  private static final int MAX_IDS_PER_QUERY = 500;
  private static final Duration WORKER_EVENT_LINGER = Duration.ofMillis(5);

  private final JobRepository jobs;
  private final TransactionTemplate tx;
  private final Clock clock;
  private final JobIds ids;
  private final List<JobLifecycleListener> listeners;
  private final GroupCommit<NewJob, Job> newJobs;
  private final GroupCommit<WorkerEvent, JobState> workerEvents;

  public JobService(
      JobRepository jobs,
      TransactionTemplate tx,
      Clock clock,
      List<JobLifecycleListener> listeners) {
    this.jobs = jobs;
    this.listeners = List.copyOf(listeners);
    this.tx = tx;
    this.clock = clock;
    this.ids = new JobIds(clock);
    this.newJobs =
        new GroupCommit<>(
            "gpuq-submit-writer",
            MAX_BATCH,
            Duration.ZERO,
            batch -> tx.execute(status -> jobs.saveAll(batch.stream().map(NewJob::job).toList())),
            one -> tx.execute(status -> jobs.save(one.job())));
    this.workerEvents =
        new GroupCommit<>(
            "gpuq-worker-event-writer",
            MAX_BATCH,
            // Nobody waits on these (a worker's place is free before its end is written), so a
            // few milliseconds gather more of them per commit.
            WORKER_EVENT_LINGER,
            batch -> tx.execute(status -> batch.stream().map(this::apply).toList()),
            one -> retryingOnConflict(status -> apply(one)));
  }

  /** Writes what submissions and workers' ends handed in before the application stops. */
  @PreDestroy
  public void close() {
    newJobs.close();
    workerEvents.close();
  }

  /** A job to store, rebuilt from these values each time its write is tried. */
  private record NewJob(
      String id, String owner, JobSpec spec, String idempotencyKey, Instant createdAt) {
    Job job() {
      return Job.submit(id, owner, spec, idempotencyKey, createdAt);
    }
  }

  /** What workers report, written in the order it happened, many per commit. */
  private sealed interface WorkerEvent {}

  private record ProcessStarted(WorkerProcess process) implements WorkerEvent {}

  /**
   * @param endedAt when the worker ended, if known better than "now" (its exit file's time, for one
   *     that ended while gpuq was down); else null
   */
  private record AttemptEnd(
      String jobId, int attempt, AttemptOutcome outcome, long gpuMemoryCap, Instant endedAt)
      implements WorkerEvent {}

  private JobState apply(WorkerEvent event) {
    if (event instanceof ProcessStarted started) {
      WorkerProcess p = started.process();
      jobs.recordWorkerProcess(p.jobId(), p.attempt(), p.pid(), p.startTicks());
      return null;
    }
    return applyEnd((AttemptEnd) event);
  }

  /**
   * Stores a new queued job, unless this caller already submitted one with the same idempotency
   * key: then that one is returned and nothing is created.
   *
   * @throws IdempotencyKeyReusedException when that earlier job was asked for with another request
   */
  public Submission submit(Caller caller, JobSpec spec, String idempotencyKey) {
    if (idempotencyKey != null) {
      Optional<Job> earlier = findByKey(caller, idempotencyKey);
      if (earlier.isPresent()) {
        return retried(earlier.get(), spec);
      }
    }
    try {
      // Concurrent submissions share a commit.
      Job job =
          await(
              newJobs.write(
                  new NewJob(ids.next(), caller.name(), spec, idempotencyKey, clock.instant())));
      return new Submission(job, true);
    } catch (DataIntegrityViolationException e) {
      // Two requests with one key raced; the unique index let exactly one of them in.
      return findByKey(caller, idempotencyKey).map(job -> retried(job, spec)).orElseThrow(() -> e);
    }
  }

  /** A retry is the same request: as the job stored it, after validation's defaults. */
  private static Submission retried(Job earlier, JobSpec spec) {
    if (!earlier.spec().equals(spec)) {
      throw new IdempotencyKeyReusedException(earlier.id());
    }
    return new Submission(earlier, false);
  }

  private Optional<Job> findByKey(Caller caller, String key) {
    return tx.execute(status -> jobs.findByOwnerAndIdempotencyKey(caller.name(), key));
  }

  public Job get(Caller caller, String id) {
    return tx.execute(status -> accessible(caller, id));
  }

  public JobPage list(
      Caller caller, JobState state, Map<String, String> labels, String beforeId, int limit) {
    JobFilter filter =
        new JobFilter(caller.isAdmin() ? null : caller.name(), state, labels, beforeId, limit);
    return tx.execute(status -> jobs.page(filter));
  }

  /**
   * Cancels a queued or running job. A running job's worker is stopped by {@code stopWorker} once
   * the cancellation is committed.
   */
  public Job cancel(Caller caller, String id, Consumer<Job> stopWorker) {
    Job job =
        retryingOnConflict(
            status -> {
              Job j = accessible(caller, id);
              if (j.state().isTerminal()) {
                throw new JobConflictException(
                    "job " + id + " has already finished (" + j.state() + ")");
              }
              boolean wasRunning = j.state() == JobState.RUNNING;
              j.cancel(clock.instant());
              return wasRunning ? j : null;
            });
    if (job != null) {
      stopWorker.accept(job);
    }
    return get(caller, id);
  }

  /**
   * Runs a read-modify-write of one job, again if a concurrent writer (the user cancelling while
   * the worker exits) changed the job first; the version column detects it.
   */
  private <T> T retryingOnConflict(TransactionCallback<T> work) {
    for (int attempt = 1; ; attempt++) {
      try {
        return tx.execute(work);
      } catch (OptimisticLockingFailureException e) {
        if (attempt == MAX_CONFLICT_RETRIES) {
          throw e;
        }
        log.debug("concurrent update of a job, retrying ({})", e.getMessage());
      }
    }
  }

  private Job accessible(Caller caller, String id) {
    Job job = jobs.findById(id).orElseThrow(() -> new JobNotFoundException(id));
    if (!caller.mayAccessJobOf(job.owner())) {
      throw new JobAccessDeniedException(id);
    }
    return job;
  }

  /** The head of the queue of CPU-only jobs, in scheduling order. */
  public List<QueuedJob> cpuQueueHead(int limit) {
    return tx.execute(status -> jobs.findCpuQueueHead(Limit.of(limit)));
  }

  /** Both queue heads, read in one transaction; a limit of 0 skips that read. */
  public QueueHead queueHead(int cpuOnlyLimit, int gpuLimit) {
    return tx.execute(
        status ->
            new QueueHead(
                cpuOnlyLimit == 0 ? List.of() : jobs.findCpuQueueHead(Limit.of(cpuOnlyLimit)),
                gpuLimit == 0 ? List.of() : jobs.findGpuQueueHead(Limit.of(gpuLimit))));
  }

  /** The heads of the two queues, each in scheduling order. */
  public record QueueHead(List<QueuedJob> cpuOnly, List<QueuedJob> gpu) {}

  /** Marks a queued job as started with this placement; empty if it is no longer queued. */
  public Optional<ClaimedJob> markStarted(String id, JobPlacement placement) {
    return markStarted(Map.of(id, placement)).stream().findFirst();
  }

  /**
   * Claims several queued jobs in one transaction, each with its placement: the jobs still queued
   * and not being claimed by another node right now ({@code FOR UPDATE SKIP LOCKED}) are started;
   * the others are left out of the answer. One commit for a whole scheduling pass.
   *
   * <p>No job is loaded: a claim locks and reads only what launching needs, in one statement, and
   * writes what {@link Job#start} would as two batches (the jobs' updates, their attempts'
   * inserts). Loading the jobs with their labels and attempts, and Hibernate's flushing them, cost
   * the scheduler most of a claim's CPU.
   */
  public List<ClaimedJob> markStarted(Map<String, JobPlacement> placements) {
    if (placements.isEmpty()) {
      return List.of();
    }
    Instant now = clock.instant();
    // No entity is written, so no version check can fail: nothing to retry.
    List<ClaimedJob> started =
        tx.execute(
            status -> {
              List<ClaimedJob> locked = jobs.lockToStart(placements.keySet());
              return jobs.startWithoutLoading(locked, placements, now);
            });
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
        processes.stream()
            .map(p -> workerEvents.write(new ProcessStarted(p)))
            .toArray(CompletableFuture[]::new));
  }

  /**
   * Records how an attempt ended. A job cancelled meanwhile only keeps the exit code; a failure
   * with attempts left sends the job back to the queue.
   *
   * @param gpuMemoryCapBytes the largest budget a retry after a memory failure may ask for
   */
  public void recordAttemptEnd(
      String id, int attempt, AttemptOutcome outcome, long gpuMemoryCapBytes) {
    await(recordAttemptEndLater(id, attempt, outcome, gpuMemoryCapBytes));
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
    return workerEvents
        .write(new AttemptEnd(id, attempt, outcome, gpuMemoryCapBytes, endedAt))
        .thenApply(
            after -> {
              if (after != null) {
                notify(l -> l.attemptEnded(id, attempt, outcome, after));
              }
              return after;
            });
  }

  private JobState applyEnd(AttemptEnd end) {
    if (end.outcome().isSuccess() && succeededInOneStatement(end)) {
      return JobState.SUCCEEDED;
    }
    String id = end.jobId();
    int attempt = end.attempt();
    AttemptOutcome outcome = end.outcome();
    Job job = jobs.findById(id).orElse(null);
    if (job == null || job.attempt() != attempt) {
      log.warn("ignoring the end of attempt {} of job {}: not its current attempt", attempt, id);
      return null;
    }
    Instant now = endTime(end);
    switch (job.state()) {
      case CANCELLED -> job.recordExitAfterCancel(outcome.exitCode());
      case RUNNING -> {
        if (outcome.isSuccess()) {
          job.succeed(outcome.exitCode(), now);
        } else {
          JobState next =
              job.failAttempt(
                  outcome.failureReason(),
                  outcome.message(),
                  outcome.exitCode(),
                  end.gpuMemoryCap(),
                  now);
          log.info(
              "job {} attempt {} failed ({}: {}); job is now {}",
              id,
              attempt,
              outcome.failureReason(),
              outcome.message(),
              next);
        }
      }
      default ->
          // Declared lost meanwhile (its node was silent) and given up: nothing to add.
          log.info(
              "attempt {} of job {} ended after the job became {}; nothing recorded",
              attempt,
              id,
              job.state());
    }
    return job.state();
  }

  /**
   * The common end, a running job's current attempt that succeeded, without loading the job: what
   * {@link Job#succeed} does, as two updates. Any other case (cancelled meanwhile, an older
   * attempt) moves no row and is left to the entity.
   */
  private boolean succeededInOneStatement(AttemptEnd end) {
    JobTransition succeed = JobTransition.SUCCEED;
    Instant now = endTime(end);
    Integer exitCode = end.outcome().exitCode();
    int moved =
        jobs.endInOneStatement(
            end.jobId(), end.attempt(), succeed.sources(), succeed.target(), exitCode, now);
    if (moved == 0) {
      return false;
    }
    jobs.endAttemptInOneStatement(end.jobId(), end.attempt(), succeed.target(), exitCode, now);
    return true;
  }

  /** When the attempt ended: as its worker's end says, never later than now. */
  private Instant endTime(AttemptEnd end) {
    Instant now = clock.instant();
    return end.endedAt() == null || end.endedAt().isAfter(now) ? now : end.endedAt();
  }

  /** Waits for a group commit, rethrowing what failed the write as it was thrown. */
  private static <T> T await(CompletableFuture<T> write) {
    try {
      return write.join();
    } catch (CompletionException e) {
      if (e.getCause() instanceof RuntimeException cause) {
        throw cause;
      }
      throw e;
    }
  }

  /** Whether this attempt of the job is still the one running on this node. */
  public boolean isRunningHere(String id, int attempt, String node) {
    return tx.execute(
        status ->
            jobs.findById(id)
                .map(
                    job ->
                        job.state() == JobState.RUNNING
                            && job.attempt() == attempt
                            && node.equals(job.node()))
                .orElse(false));
  }

  /**
   * Declares every job running on a dead node LOST (requeued when it has attempts left).
   *
   * @return how many
   */
  public int declareLostOn(String node, String why) {
    int lost = 0;
    for (Job job : runningOn(node)) {
      recordAttemptEnd(
          job.id(), job.attempt(), new AttemptOutcome(FailureReason.LOST, why, null), 0);
      lost++;
    }
    return lost;
  }

  /** Attempts on this node that another node declared lost, and whose workers may still run. */
  public List<LostAttempt> lostAttemptsOn(String node) {
    return tx.execute(status -> jobs.findLostAttemptsOn(node));
  }

  /** Jobs an earlier gpuq on this node left running. */
  public List<Job> runningOn(String node) {
    return tx.execute(status -> jobs.findByStateAndNode(JobState.RUNNING, node));
  }

  /** The poller measured a new peak of the job's GPU memory. */
  public void observeGpuMemory(String id, long bytes) {
    retryingOnConflict(
        status -> {
          jobs.findById(id)
              .filter(job -> job.state() == JobState.RUNNING)
              .ifPresent(job -> job.observeGpuMemory(bytes));
          return null;
        });
  }

  /**
   * Which of these jobs have ended, read in one query (per {@value #MAX_IDS_PER_QUERY} ids) however
   * many there are: log followers learn their jobs' ends this way, not with a query each.
   */
  public Set<String> endedAmong(Collection<String> ids) {
    List<JobState> ended = Arrays.stream(JobState.values()).filter(JobState::isTerminal).toList();
    List<String> all = List.copyOf(ids);
    Set<String> found = new HashSet<>();
    for (int from = 0; from < all.size(); from += MAX_IDS_PER_QUERY) {
      List<String> chunk = all.subList(from, Math.min(all.size(), from + MAX_IDS_PER_QUERY));
      found.addAll(tx.execute(status -> jobs.findIdsInStates(chunk, ended)));
    }
    return found;
  }

  /** The most GPU memory an attempt was measured to use on one GPU, if it was measured. */
  public Optional<Long> peakGpuMemoryOf(String id, int attempt) {
    return tx.execute(
        status ->
            jobs.findById(id).stream()
                .flatMap(job -> job.attempts().stream())
                .filter(a -> a.attempt() == attempt)
                .findFirst()
                .map(JobAttempt::peakGpuMemoryBytes));
  }

  /** Jobs per state, for the {@code gpuq_jobs} gauge. */
  public Map<JobState, Long> countByState() {
    Map<JobState, Long> counts = new EnumMap<>(JobState.class);
    for (JobState state : JobState.values()) {
      counts.put(state, 0L);
    }
    tx.execute(status -> jobs.countByStateRaw())
        .forEach(row -> counts.put((JobState) row[0], (Long) row[1]));
    return counts;
  }
}
