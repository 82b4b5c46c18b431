package io.gpuq.storage;

import io.gpuq.concurrency.TrialSlots;
import io.gpuq.fairshare.Held;
import io.gpuq.fairshare.StartLimits;
import io.gpuq.job.AttemptEnd;
import io.gpuq.job.AttemptStanding;
import io.gpuq.job.BoundCores;
import io.gpuq.job.ClaimedJob;
import io.gpuq.job.IdempotencyKeyTakenException;
import io.gpuq.job.Job;
import io.gpuq.job.JobAttempt;
import io.gpuq.job.JobFilter;
import io.gpuq.job.JobPage;
import io.gpuq.job.JobPlacement;
import io.gpuq.job.JobState;
import io.gpuq.job.JobStore;
import io.gpuq.job.JobStoreUnavailableException;
import io.gpuq.job.LostAttempt;
import io.gpuq.job.NewJob;
import io.gpuq.job.QueryTimeouts;
import io.gpuq.job.QueueHead;
import io.gpuq.job.QueuedJob;
import io.gpuq.job.StoppedAttempt;
import io.gpuq.job.StoppedAttempts;
import io.gpuq.job.StoreTimeoutException;
import io.gpuq.job.TooManyQueuedJobsException;
import io.gpuq.job.TrialSeries;
import io.gpuq.job.WorkerProcess;
import io.gpuq.reported.MetricsPage;
import io.gpuq.reported.MetricsUpdate;
import io.gpuq.reported.ReportedPoint;
import io.gpuq.reported.ReportingJob;
import jakarta.persistence.EntityManager;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.Comparator;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.function.Function;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.context.annotation.Lazy;
import org.springframework.dao.DataAccessException;
import org.springframework.dao.DataIntegrityViolationException;
import org.springframework.dao.OptimisticLockingFailureException;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.orm.jpa.EntityManagerFactoryUtils;
import org.springframework.stereotype.Component;
import org.springframework.transaction.TransactionException;
import org.springframework.transaction.support.TransactionCallback;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * The job store in a relational database (H2, PostgreSQL): the job as a JPA entity where its own
 * rules change it, and the tables' statements ({@link JobTable}, {@link JobMetricsTable}, {@link
 * OwnerQueuedTable}, {@link SweepTable}) where loading the entity cost the scheduler most of its
 * CPU (claims, successes, the queue's heads) or where no entity is concerned; both in one
 * transaction, the tables' {@code JdbcClient} on the JPA session's connection. Each use is its own
 * transaction; what many threads hand in at once (submissions, workers' starts and ends) shares a
 * commit ({@link GroupCommit}).
 */
@Component
public class JpaJobStore implements JobStore {

  private static final Logger log = LoggerFactory.getLogger(JpaJobStore.class);
  private static final int MAX_CONFLICT_RETRIES = 5;
  private static final int MAX_BATCH = 64;
  private static final int MAX_IDS_PER_QUERY = 500;
  private static final Duration WORKER_EVENT_LINGER = Duration.ofMillis(5);

  /** The JPA hint that becomes JDBC's {@code setQueryTimeout}, honoured by H2 and PostgreSQL. */
  private static final String TIMEOUT_HINT = "jakarta.persistence.query.timeout";

  private final JobRepository jobs;

  /** For a page's jobs, loaded by their ids with the listing's query timeout. */
  private final EntityManager entities;

  /** {@code gpuq.api.query-timeout}: how long each read of a page may run. */
  private final Duration listingTimeout;

  private final TransactionTemplate tx;
  private final TransactionTemplate reads;
  private final NotificationTable notifications;
  private final OwnerQueuedTable owners;
  private final SweepTable sweeps;
  private final JobMetricsTable metrics;
  private final JobTable table;
  private final GroupCommit<Submitted, Job> newJobs;
  private final GroupCommit<WorkerEvent, JobState> workerEvents;

  /**
   * The repository (and the entity manager) come as proxies that resolve on first use: that needs
   * Hibernate's metamodel, which is built in the background while the rest of gpuq starts
   * (wiring.JpaBootstrapConfiguration); wiring this store must not wait for it.
   */
  public JpaJobStore(
      @Lazy JobRepository jobs,
      @Lazy EntityManager entities,
      TransactionTemplate tx,
      DataSource dataSource,
      @Value("${gpuq.api.query-timeout:" + QueryTimeouts.DEFAULT + "}") Duration listingTimeout) {
    this.jobs = jobs;
    this.entities = entities;
    this.listingTimeout = listingTimeout;
    this.notifications = new NotificationTable(dataSource);
    this.owners = new OwnerQueuedTable(dataSource);
    this.sweeps = new SweepTable(new JdbcTemplate(dataSource), tx);
    this.metrics = new JobMetricsTable(dataSource);
    this.table = new JobTable(dataSource, listingTimeout);
    this.tx = tx;
    this.reads = readOnly(tx);
    this.newJobs =
        new GroupCommit<>(
            "gpuq-submit-writer",
            MAX_BATCH,
            Duration.ZERO,
            batch -> tx.execute(status -> saveWithinLimits(batch)),
            one -> tx.execute(status -> saveWithinLimits(List.of(one)).get(0)));
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

  /**
   * The template for what users read (a job, a page, an idempotency key's job). Read-only,
   * Hibernate keeps no snapshot of what it loads (a copy of each JSON column, made by writing it
   * and parsing it again) and does not flush, so dirty-checking nothing, at the end.
   */
  private static TransactionTemplate readOnly(TransactionTemplate tx) {
    TransactionTemplate reads = new TransactionTemplate(tx.getTransactionManager(), tx);
    reads.setReadOnly(true);
    return reads;
  }

  /** Writes what submissions and workers' ends handed in before the application stops. */
  @Override
  public void close() {
    newJobs.close();
    workerEvents.close();
  }

  /** What workers report, written in the order it happened, many per commit. */
  private sealed interface WorkerEvent {}

  private record ProcessStarted(WorkerProcess process) implements WorkerEvent {}

  private record Ended(AttemptEnd end) implements WorkerEvent {}

  private JobState apply(WorkerEvent event) {
    if (event instanceof ProcessStarted started) {
      WorkerProcess p = started.process();
      BoundCores cores = p.cores();
      jobs.recordWorkerProcess(
          p.jobId(),
          p.attempt(),
          p.pid(),
          p.startTicks(),
          cores == null ? null : cores.cpus(),
          cores == null ? null : cores.boundBy());
      return null;
    }
    return applyEnd(((Ended) event).end());
  }

  /** A job handed to the writer, with its owner's {@code max-queued-jobs}. */
  private record Submitted(NewJob job, long maxQueued) {}

  /**
   * Saves these new jobs unless one would take its owner past their queued limit. The owners whose
   * limit could matter are locked first and their queued jobs counted, so that no other node's
   * submission slips in between (this node's are written by the one writer thread). One past the
   * limit fails the batch, whose jobs are then written one by one: only its own submission fails.
   */
  private List<Job> saveWithinLimits(List<Submitted> batch) {
    Map<String, Long> maxByOwner = new HashMap<>();
    Map<String, Long> adding = new HashMap<>();
    for (Submitted submitted : batch) {
      if (submitted.maxQueued() != Long.MAX_VALUE) {
        maxByOwner.merge(submitted.job().owner(), submitted.maxQueued(), Math::min);
        adding.merge(submitted.job().owner(), 1L, Long::sum);
      }
    }
    if (!maxByOwner.isEmpty()) {
      owners.lockOwners(maxByOwner.keySet(), batch.get(0).job().createdAt());
      Map<String, Long> queued = owners.queuedOf(maxByOwner.keySet());
      maxByOwner.forEach(
          (owner, max) -> {
            long now = queued.getOrDefault(owner, 0L);
            if (now + adding.get(owner) > max) {
              throw new TooManyQueuedJobsException(max, now, adding.get(owner));
            }
          });
    }
    List<Job> saved = jobs.saveAll(batch.stream().map(submitted -> submitted.job().job()).toList());
    // Their notifications (issue 37), in this transaction: a job is never stored without them.
    for (Submitted submitted : batch) {
      NewJob job = submitted.job();
      if (!job.notifications().isEmpty()) {
        notifications.add(job.id(), null, job.owner(), job.notifications(), job.createdAt());
      }
    }
    return saved;
  }

  @Override
  public Job submit(NewJob job) {
    return submit(job, Long.MAX_VALUE);
  }

  @Override
  public Job submit(NewJob job, long maxQueued) {
    try {
      // Concurrent submissions share a commit.
      return JobStore.await(newJobs.write(new Submitted(job, maxQueued)));
    } catch (DataIntegrityViolationException e) {
      if (job.idempotencyKey() == null) {
        throw e;
      }
      // The unique index on (owner, key) let another job with this key in first.
      throw new IdempotencyKeyTakenException(job.owner(), job.idempotencyKey(), e);
    }
  }

  @Override
  public Optional<Job> find(String id) {
    return reads.execute(status -> jobs.findWithAttempts(id));
  }

  @Override
  public Optional<Job> findByKey(String owner, String idempotencyKey) {
    return reads.execute(status -> jobs.findByOwnerAndIdempotencyKey(owner, idempotencyKey));
  }

  /**
   * One page, newest first, in two reads: the ids of its rows ({@link JobTable#pageIds}, by an
   * index, stopping at the limit), then those jobs, whose labels and attempts follow in batches
   * ({@link Job#ASSOCIATION_BATCH} at a time); only the page's rows are read, whatever the filter
   * matches. Either read that outlasts {@code gpuq.api.query-timeout} is cancelled by the database
   * and thrown as gpuq's {@link StoreTimeoutException}.
   */
  @Override
  public JobPage page(JobFilter filter) {
    try {
      return reads.execute(
          status -> {
            List<String> ids = table.pageIds(filter);
            boolean more = ids.size() > filter.limit();
            List<String> pageIds = more ? ids.subList(0, filter.limit()) : ids;
            List<Job> page = pageIds.isEmpty() ? List.of() : jobsWithIds(pageIds);
            return new JobPage(page, more ? pageIds.get(pageIds.size() - 1) : null);
          });
    } catch (org.springframework.dao.QueryTimeoutException
        | jakarta.persistence.QueryTimeoutException e) {
      throw new StoreTimeoutException(e);
    }
  }

  /**
   * The jobs with these ids, newest first, in statements of {@link Job#ASSOCIATION_BATCH} ids, for
   * the reason given there; each cancelled by the database at the listing's query timeout.
   */
  private List<Job> jobsWithIds(List<String> ids) {
    // An Integer, in milliseconds: Hibernate refuses a Long here.
    int timeoutMillis = (int) Math.max(1, Math.min(Integer.MAX_VALUE, listingTimeout.toMillis()));
    List<Job> found = new ArrayList<>(ids.size());
    for (int from = 0; from < ids.size(); from += Job.ASSOCIATION_BATCH) {
      List<String> chunk = ids.subList(from, Math.min(ids.size(), from + Job.ASSOCIATION_BATCH));
      try {
        found.addAll(
            entities
                .createQuery("select j from Job j where j.id in :ids", Job.class)
                .setHint(TIMEOUT_HINT, timeoutMillis)
                .setParameter("ids", chunk)
                .getResultList());
      } catch (RuntimeException e) {
        // As a repository would: Spring's exceptions, which the API answers (a timeout, a
        // database gone), not JPA's.
        DataAccessException translated =
            EntityManagerFactoryUtils.convertJpaAccessExceptionIfPossible(e);
        throw translated != null ? translated : e;
      }
    }
    found.sort(Comparator.comparing(Job::id).reversed());
    return found;
  }

  @Override
  public QueueHead queueHead(int cpuPerOwner, int cpuOnlyLimit, int gpuPerOwner, int gpuLimit) {
    return tx.execute(
        status -> {
          // Trials of a full sweep are left out, so that they do not fill the lookahead while
          // the jobs behind them could start.
          Map<String, TrialSlots> full = sweeps.fullSweeps();
          List<QueuedJob> cpu =
              table.queueHeadsByOwner(false, cpuPerOwner, cpuOnlyLimit, full.keySet());
          List<QueuedJob> gpu = table.queueHeadsByOwner(true, gpuPerOwner, gpuLimit, full.keySet());
          Set<String> sweepIds = new HashSet<>();
          cpu.forEach(job -> addSweep(sweepIds, job));
          gpu.forEach(job -> addSweep(sweepIds, job));
          Map<String, TrialSlots> limited = new HashMap<>(full);
          limited.putAll(sweeps.trialSlots(sweepIds));
          return new QueueHead(cpu, gpu, limited);
        });
  }

  @Override
  public Map<String, Held> heldByOwner() {
    return reads.execute(status -> table.heldByOwner(null));
  }

  @Override
  public Map<String, Held> heldByOwnerOn(String node) {
    return reads.execute(status -> table.heldByOwner(node));
  }

  private static void addSweep(Set<String> sweeps, QueuedJob job) {
    if (job.sweepId() != null) {
      sweeps.add(job.sweepId());
    }
  }

  @Override
  public List<ClaimedJob> claim(Map<String, JobPlacement> placements, Instant now) {
    if (placements.isEmpty()) {
      return List.of();
    }
    // No entity is written, so no version check can fail: nothing to retry.
    return tx.execute(
        status -> {
          // The sweeps' rows before the jobs': a sweep's cancel takes them in that order too.
          Map<String, TrialSlots> slots = sweeps.lockTrialSlotsOf(placements.keySet());
          List<ClaimedJob> locked =
              inClaimOrder(table.lockToStart(placements.keySet()), placements);
          return start(ClaimedJob.withinTrialLimits(locked, slots), placements, now);
        });
  }

  @Override
  public List<ClaimedJob> claim(
      Map<String, JobPlacement> placements, Instant now, StartLimits limits) {
    Set<String> limited = limits.limitedOwners();
    if (placements.isEmpty() || limited.isEmpty()) {
      return claim(placements, now);
    }
    return tx.execute(
        status -> {
          Map<String, TrialSlots> slots = sweeps.lockTrialSlotsOf(placements.keySet());
          List<ClaimedJob> locked =
              inClaimOrder(table.lockToStart(placements.keySet()), placements);
          List<ClaimedJob> within = ClaimedJob.withinTrialLimits(locked, slots);
          // The owners' rows after the jobs': a submission locks only its owner's row, and adds
          // rows nobody else locks. Read after the lock, what the owners hold includes what
          // another node's claim, which held the lock before us, started.
          owners.lockOwners(limited, now);
          Set<String> past =
              limits.pastLimits(
                  within.stream().map(ClaimedJob::id).toList(), table.heldByOwner(null));
          List<ClaimedJob> allowed =
              past.isEmpty()
                  ? within
                  : within.stream().filter(j -> !past.contains(j.id())).toList();
          return start(allowed, placements, now);
        });
  }

  /**
   * Starts these locked jobs. Their owners' queued counts are locked first, in owner order: the
   * database's trigger then updates rows this transaction holds already ({@link
   * OwnerQueuedTable#lockQueuedCounts}).
   */
  private List<ClaimedJob> start(
      List<ClaimedJob> locked, Map<String, JobPlacement> placements, Instant now) {
    if (locked.isEmpty()) {
      return List.of();
    }
    Set<String> ownersOf = new HashSet<>();
    locked.forEach(job -> ownersOf.add(job.owner()));
    owners.lockQueuedCounts(ownersOf);
    return table.start(locked, placements, now);
  }

  private static List<ClaimedJob> inClaimOrder(
      List<ClaimedJob> locked, Map<String, JobPlacement> placements) {
    if (locked.size() < 2) {
      return locked;
    }
    Map<String, ClaimedJob> byId = new HashMap<>();
    locked.forEach(job -> byId.put(job.id(), job));
    List<ClaimedJob> ordered = new ArrayList<>(locked.size());
    for (String id : placements.keySet()) {
      ClaimedJob job = byId.get(id);
      if (job != null) {
        ordered.add(job);
      }
    }
    return ordered;
  }

  @Override
  public CompletableFuture<Void> recordProcess(WorkerProcess process) {
    return translated(workerEvents.write(new ProcessStarted(process))).thenApply(state -> null);
  }

  @Override
  public CompletableFuture<JobState> endAttempt(AttemptEnd end) {
    return translated(workerEvents.write(new Ended(end)));
  }

  /** A write's failure in the store's words: a database that cannot write now is unavailable. */
  private static <T> CompletableFuture<T> translated(CompletableFuture<T> write) {
    CompletableFuture<T> result = new CompletableFuture<>();
    write.whenComplete(
        (value, failure) -> {
          if (failure == null) {
            result.complete(value);
          } else {
            result.completeExceptionally(unavailableIfSo(failure));
          }
        });
    return result;
  }

  private static Throwable unavailableIfSo(Throwable failure) {
    Throwable cause = failure instanceof CompletionException ? failure.getCause() : failure;
    for (Throwable t = cause; t != null; t = t.getCause()) {
      if (t instanceof DataAccessException || t instanceof TransactionException) {
        return new JobStoreUnavailableException(cause);
      }
    }
    return cause;
  }

  private JobState applyEnd(AttemptEnd end) {
    if (end.outcome().isSuccess()
        && table.succeed(end.jobId(), end.attempt(), end.outcome().exitCode(), end.endedAt())) {
      return JobState.SUCCEEDED;
    }
    // Any other case (a failure, cancelled meanwhile, an older attempt) is left to the entity.
    return jobs.findById(end.jobId()).map(job -> job.endAttempt(end)).orElse(null);
  }

  @Override
  public <T> Optional<T> update(String id, Function<Job, T> change) {
    return retryingOnConflict(status -> jobs.findById(id).map(change));
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

  /**
   * In one transaction: the waiting job's row is written (held on this node), so a second node's
   * preemption for it conflicts on its version and, tried again, finds it held.
   */
  @Override
  public boolean preemptFor(String servedJobId, String node, Map<String, Integer> victimAttempts) {
    return retryingOnConflict(
        status -> {
          boolean done =
              JobStore.preemptIn(
                  new JobStore.JobUpdates() {
                    @Override
                    public <T> Optional<T> update(String id, Function<Job, T> change) {
                      return jobs.findById(id).map(change);
                    }
                  },
                  servedJobId,
                  node,
                  victimAttempts);
          if (done) {
            jobs.flush();
          }
          return done;
        });
  }

  @Override
  public List<Job> runningOn(String node) {
    return tx.execute(status -> jobs.findByStateAndNode(JobState.RUNNING, node));
  }

  @Override
  public List<LostAttempt> lostAttemptsOn(String node, Instant declaredSince) {
    return tx.execute(status -> jobs.findLostAttemptsOn(node, declaredSince));
  }

  @Override
  public List<StoppedAttempt> stoppedAttemptsOn(String node, Instant endedSince) {
    return tx.execute(
        status -> jobs.findStoppedAttemptsOn(node, endedSince, StoppedAttempts.STATES));
  }

  @Override
  public AttemptStanding standingOf(String jobId, int attempt, String node) {
    return tx.execute(
            status -> jobs.findById(jobId).map(job -> AttemptStanding.of(job, attempt, node)))
        .orElse(AttemptStanding.GONE);
  }

  /** Read in one query per {@value #MAX_IDS_PER_QUERY} ids, however many there are. */
  @Override
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

  @Override
  public Optional<Long> peakGpuMemoryOf(String id, int attempt) {
    return tx.execute(
        status ->
            jobs.findById(id).stream()
                .flatMap(job -> job.attempts().stream())
                .filter(a -> a.attempt() == attempt)
                .findFirst()
                .map(JobAttempt::peakGpuMemoryBytes));
  }

  @Override
  public Map<JobState, Long> countByState() {
    Map<JobState, Long> counts = new EnumMap<>(JobState.class);
    for (JobState state : JobState.ofJobs()) {
      counts.put(state, 0L);
    }
    tx.execute(status -> jobs.countByStateRaw())
        .forEach(row -> counts.put((JobState) row[0], (Long) row[1]));
    return counts;
  }

  @Override
  public List<ReportingJob> jobsReportingOn(String node, String afterId, int limit) {
    return tx.execute(status -> metrics.reportingOn(node, afterId, limit));
  }

  @Override
  public Optional<ReportingJob> reportingJob(String jobId) {
    return tx.execute(status -> metrics.reporting(jobId));
  }

  @Override
  public void recordMetrics(MetricsUpdate update) {
    tx.executeWithoutResult(status -> metrics.insert(update));
  }

  @Override
  public List<ReportedPoint> metricsOf(String jobId, int limit) {
    return tx.execute(status -> metrics.points(jobId, limit));
  }

  @Override
  public MetricsPage metricsPage(String jobId, long after, int limit, long maxBytes) {
    return tx.execute(status -> metrics.page(jobId, after, limit, maxBytes));
  }

  @Override
  public List<TrialSeries> sweepSeries(String sweepId, String metric) {
    return tx.execute(status -> metrics.sweepSeries(sweepId, metric));
  }
}
