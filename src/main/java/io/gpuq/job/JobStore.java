package io.gpuq.job;

import io.gpuq.fairshare.Held;
import io.gpuq.fairshare.StartLimits;
import io.gpuq.reported.MetricsPage;
import io.gpuq.reported.MetricsUpdate;
import io.gpuq.reported.ReportedPoint;
import io.gpuq.reported.ReportingJob;
import java.time.Instant;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.function.Function;

/**
 * Where jobs live, in the lifecycle's own words: a job is submitted, claimed by a node, its
 * worker's process recorded, its attempt ended (or declared lost, or its cancel requested), and
 * read back. Each move is one of {@link JobTransition}'s, which states what it sets and clears.
 *
 * <p>The rules of the moves (what a cancel, a prune, an attempt's end do, and when they are
 * refused) are written once, here and in {@link Job}; an implementation persists: the versioned
 * {@link #update}, the queries, and the moves that must stay single statements (a claim, a success,
 * a sweep's trials), written from {@link JobTransition}.
 *
 * <p>Several nodes may share one store: every write is guarded by the state it may leave, so that
 * of two nodes (or a node and a user) moving one job at once, one wins and the other is told so.
 * The contract of every implementation is {@code JobStoreContract}, in the tests.
 */
public interface JobStore extends AutoCloseable {

  /**
   * Stores a new job, queued for its first attempt.
   *
   * @throws IdempotencyKeyTakenException when its owner already has a job with its key
   */
  Job submit(NewJob job);

  /**
   * Stores a new job unless its owner has {@code maxQueued} queued jobs already: counted in the
   * insert's own transaction, with the owner's row locked, so that concurrent submissions (on any
   * node) cannot both slip past the limit.
   *
   * @throws TooManyQueuedJobsException when it would pass the limit; nothing is stored
   */
  default Job submit(NewJob job, long maxQueued) {
    return submit(job);
  }

  Optional<Job> find(String id);

  /** The job this owner submitted with this idempotency key. */
  Optional<Job> findByKey(String owner, String idempotencyKey);

  /** One page of a listing, newest first. */
  JobPage page(JobFilter filter);

  /**
   * Both queue heads, each at most {@code limit} jobs and at most as many of each owner's; a limit
   * of 0 skips one ({@link #queueHead(int, int, int, int)}).
   */
  default QueueHead queueHead(int cpuOnlyLimit, int gpuLimit) {
    return queueHead(cpuOnlyLimit, cpuOnlyLimit, gpuLimit, gpuLimit);
  }

  /**
   * The first queued jobs of every owner, of each kind: each owner's in their scheduling order
   * (priority, then submission), at most {@code perOwner} of them, and at most {@code limit} in
   * all, taken by their rank within their owner (every owner's first job, then every owner's
   * second, and so on), so that no owner's long queue hides another owner's jobs. Equal ranks go by
   * the time their job was queued, then submission: when more owners have queued jobs than the
   * limit, the owners whose next job has waited longest are read (as fair share breaks its ties),
   * not those with the highest {@code priority}, which orders an owner's own jobs only. With one
   * owner this is the queue's head in scheduling order. A limit of 0 skips that kind.
   */
  QueueHead queueHead(int cpuPerOwner, int cpuOnlyLimit, int gpuPerOwner, int gpuLimit);

  /** What the running jobs of each owner hold, over every node; owners with none are left out. */
  Map<String, Held> heldByOwner();

  /** What the running jobs of each owner hold on this node. */
  Map<String, Held> heldByOwnerOn(String node);

  /**
   * Starts those of these jobs that are still queued ({@link JobTransition#START}), each with its
   * placement; jobs no longer queued, or being claimed by another node this very moment, are left
   * out of the answer and left as they were.
   */
  List<ClaimedJob> claim(Map<String, JobPlacement> placements, Instant now);

  /**
   * {@link #claim(Map, Instant)}, leaving out the starts that would take their owner past a running
   * limit with what every node's jobs hold as of the claim ({@link StartLimits}), checked in the
   * claim's transaction. A store that serves one node alone may leave it to the pass, which checked
   * already.
   */
  default List<ClaimedJob> claim(
      Map<String, JobPlacement> placements, Instant now, StartLimits limits) {
    return claim(placements, now);
  }

  /**
   * The versioned update: reads job {@code id}, applies {@code change} to it and stores what it
   * changed, at once. When another writer changed the job meanwhile (the user cancelling while the
   * worker exits), {@code change} is applied again to a fresh read, so it must change nothing but
   * the job. An exception it throws leaves the job as it was.
   *
   * @return what {@code change} answered; empty when there is no such job, or it answered null
   */
  <T> Optional<T> update(String id, Function<Job, T> change);

  /**
   * Waits for one of these writes (or a group commit behind one), rethrowing what failed it as it
   * was thrown rather than wrapped in a {@link CompletionException}.
   */
  static <T> T await(CompletableFuture<T> write) {
    try {
      return write.join();
    } catch (CompletionException e) {
      if (e.getCause() instanceof RuntimeException cause) {
        throw cause;
      }
      throw e;
    }
  }

  /**
   * Records an attempt's worker process. Not only while the job runs: a fast worker may have ended,
   * and been recorded, before its launch is. The future completes once it is stored.
   */
  default CompletableFuture<Void> recordProcess(WorkerProcess process) {
    update(
        process.jobId(),
        job -> {
          job.recordProcess(process);
          return Boolean.TRUE;
        });
    return CompletableFuture.completedFuture(null);
  }

  /**
   * Records how an attempt ended ({@link Job#endAttempt}). The future completes once it is stored,
   * with the job's state after it, or null when that attempt was no longer the job's current one.
   */
  default CompletableFuture<JobState> endAttempt(AttemptEnd end) {
    return CompletableFuture.completedFuture(
        update(end.jobId(), job -> job.endAttempt(end)).orElse(null));
  }

  /**
   * Declares an attempt LOST: its node fell silent. A job with attempts left is queued again.
   *
   * @see #endAttempt
   */
  default CompletableFuture<JobState> declareLost(
      String jobId, int attempt, String why, Instant at) {
    return endAttempt(
        new AttemptEnd(jobId, attempt, new AttemptOutcome(FailureReason.LOST, why, null), 0, at));
  }

  /**
   * Cancels a queued or running job ({@link JobTransition#CANCEL}, {@link
   * JobTransition#CANCEL_RUNNING}). That is a stored fact: the node running the job's worker learns
   * it from here ({@link #standingOf}) and stops the worker; a running job finishes when the end of
   * its worker is recorded ({@link #endAttempt}), once its last process is gone.
   *
   * @return the state the job left
   * @throws JobNotFoundException when there is no such job
   * @throws JobConflictException when it has already finished
   */
  default JobState cancel(String id, Instant now) {
    return update(
            id,
            job -> {
              if (job.state().isTerminal()) {
                throw new JobConflictException(
                    "job " + id + " has already finished (" + job.state() + ")");
              }
              JobState from = job.state();
              job.cancel(now);
              return from;
            })
        .orElseThrow(() -> new JobNotFoundException(id));
  }

  /**
   * Prunes a running trial ({@link JobTransition#PRUNE}): its sweep's early-stopping rule stopped
   * it. Like a cancel, a stored fact: the node running its worker stops it ({@link #standingOf}).
   *
   * @param why in words and numbers, kept on the attempt
   * @return whether it was pruned: false when it no longer runs (it ended, or was cancelled, first)
   * @throws JobNotFoundException when there is no such job
   */
  default boolean prune(String jobId, String why, Instant now) {
    return update(
            jobId,
            job -> {
              if (!JobTransition.PRUNE.isAllowedFrom(job.state())) {
                return false;
              }
              job.prune(why, now);
              return true;
            })
        .orElseThrow(() -> new JobNotFoundException(jobId));
  }

  /**
   * Preempts running jobs so that a waiting job starts on {@code node} (issue 35), in one
   * transaction: all or none. Nothing happens when the waiting job is no longer queued, another
   * node holds it already, or a victim no longer runs that attempt or is being preempted already:
   * so two nodes never preempt for one job, and no job is preempted twice.
   *
   * @param victimAttempts each victim's id and the attempt it runs
   * @return whether they were preempted
   */
  default boolean preemptFor(String servedJobId, String node, Map<String, Integer> victimAttempts) {
    return preemptIn(this::update, servedJobId, node, victimAttempts);
  }

  /**
   * The rule of {@link #preemptFor}, on whatever reads and writes the jobs (within one
   * transaction).
   */
  static boolean preemptIn(
      JobUpdates jobs, String servedJobId, String node, Map<String, Integer> victimAttempts) {
    boolean free =
        jobs.update(servedJobId, job -> job.state() == JobState.QUEUED && job.heldOn() == null)
            .orElse(false);
    if (!free || victimAttempts.isEmpty()) {
      return false;
    }
    for (Map.Entry<String, Integer> victim : victimAttempts.entrySet()) {
      boolean ready =
          jobs.update(
                  victim.getKey(),
                  job ->
                      job.state() == JobState.RUNNING
                          && job.attempt() == victim.getValue()
                          && job.preemptReason().isEmpty()
                          && node.equals(job.node()))
              .orElse(false);
      if (!ready) {
        return false;
      }
    }
    jobs.update(servedJobId, job -> job.holdOn(node));
    victimAttempts.forEach(
        (id, attempt) ->
            jobs.update(
                id, job -> job.markPreempting(attempt, PreemptReason.FAIR_SHARE, servedJobId)));
    return true;
  }

  /** A read-modify-write of one job, as {@link #update}. */
  @FunctionalInterface
  interface JobUpdates {
    <T> Optional<T> update(String id, Function<Job, T> change);
  }

  /** The peak of GPU memory measured for a running job's process tree, if higher than before. */
  default void observeGpuMemory(String id, long bytes) {
    update(
        id,
        job -> {
          if (job.state() == JobState.RUNNING) {
            job.observeGpuMemory(bytes);
          }
          return Boolean.TRUE;
        });
  }

  /** Jobs running on this node: after a restart, the ones an earlier gpuq there left running. */
  List<Job> runningOn(String node);

  /**
   * Attempts on this node that another node declared lost at or after {@code declaredSince}, and
   * whose workers may still run. Bounded by time, as the attempts of jobs stay until retention
   * deletes them, and a node that was silent long ago has been restarted since.
   */
  List<LostAttempt> lostAttemptsOn(String node, Instant declaredSince);

  /**
   * Attempts on this node whose job was cancelled, or whose trial was pruned, while they ran, ended
   * at or after {@code endedSince}, and whose worker's exit was not recorded: after a crash of gpuq
   * there, their workers may still run. Bounded by time, as ended jobs keep their attempts until
   * retention deletes them.
   */
  List<StoppedAttempt> stoppedAttemptsOn(String node, Instant endedSince);

  /** What became of an attempt a worker on {@code node} runs: whether it should run on. */
  AttemptStanding standingOf(String jobId, int attempt, String node);

  /** Which of these jobs have ended. */
  Set<String> endedAmong(Collection<String> ids);

  /** The most GPU memory an attempt was measured to use on one GPU, if it was measured. */
  Optional<Long> peakGpuMemoryOf(String id, int attempt);

  /** Jobs per state, every state present (0 when none). */
  Map<JobState, Long> countByState();

  // --- metrics a run reports (GPUQ_METRICS_FILE) -------------------------------------------------

  /**
   * The jobs whose metrics files this node reads: those that ran on it (running, or ended) and are
   * not read to their end yet.
   */
  default List<ReportingJob> jobsReportingOn(String node) {
    return jobsReportingOn(node, null, Integer.MAX_VALUE);
  }

  /**
   * At most {@code limit} of the jobs {@link #jobsReportingOn(String)} lists, by id, those after
   * {@code afterId} (null: from the first): a poll reads them in batches, never all at once.
   */
  List<ReportingJob> jobsReportingOn(String node, String afterId, int limit);

  /** One job whose metrics file is not read to its end yet, as {@link #jobsReportingOn} has it. */
  default Optional<ReportingJob> reportingJob(String jobId) {
    return find(jobId)
        .filter(job -> job.node() != null)
        .flatMap(
            job ->
                jobsReportingOn(job.node()).stream()
                    .filter(reporting -> reporting.jobId().equals(jobId))
                    .findFirst());
  }

  /**
   * Stores one read of a job's metrics file at once: its points (numbered on from the job's last),
   * where the next read starts, what the job's view shows, and whether it is read to its end. A
   * read of an attempt the job has left (it was requeued meanwhile) is dropped: the next attempt's
   * file is another, read from its start.
   */
  void recordMetrics(MetricsUpdate update);

  /**
   * The first {@code limit} points a job reported, in the order they were read: every attempt's,
   * each point with its attempt.
   */
  List<ReportedPoint> metricsOf(String jobId, int limit);

  /**
   * A page of the points a job reported, in the order they were read: at most {@code limit} points
   * after position {@code after} ({@link MetricsPage#nextAfter}; -1 for the first page), fewer when
   * their values pass {@code maxBytes} (never none while some are left), with what the caps left
   * out of its current attempt.
   */
  MetricsPage metricsPage(String jobId, long after, int limit, long maxBytes);

  /**
   * Every trial of a sweep, in any state, with the values of {@code metric} its current attempt
   * (running, or the last) reported, in the order they were read: what its early-stopping rule
   * judges. A failed attempt's values are left out: they belong to a run that is over.
   */
  List<TrialSeries> sweepSeries(String sweepId, String metric);

  /** Stores what was handed in and not stored yet. */
  @Override
  default void close() {}
}
