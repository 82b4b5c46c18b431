package io.gpuq.job;

import io.gpuq.concurrency.TrialSlots;
import io.gpuq.fairshare.Held;
import io.gpuq.fairshare.StartLimits;
import io.gpuq.reported.MetricsCaps;
import io.gpuq.reported.MetricsJson;
import io.gpuq.reported.MetricsPage;
import io.gpuq.reported.MetricsUpdate;
import io.gpuq.reported.ReadingState;
import io.gpuq.reported.ReportedPoint;
import io.gpuq.reported.ReportingJob;
import io.gpuq.reported.SweepObjective;
import io.gpuq.text.Cpus;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;
import java.util.function.Predicate;

/**
 * The job store in this process's memory: for tests of the scheduler's steps, and the reference the
 * database stores are compared with (the same {@code JobStoreContract}). One lock serialises every
 * use, so no two writers ever race; jobs are handed out as copies, so that what a caller holds
 * never changes under it, as with a database.
 */
public final class InMemoryJobStore implements JobStore {

  // Scheduling order: priority first, then submission order (ids sort by creation time).
  private static final Comparator<Job> QUEUE_ORDER =
      Comparator.comparingInt(Job::priority).reversed().thenComparing(Job::id);

  private final Map<String, Job> jobs = new HashMap<>();
  private final Map<String, SweepObjective> sweeps = new HashMap<>();
  private final Map<String, List<StoredPoint>> metrics = new HashMap<>();

  /** A point as a database store keeps it: its place in the job's series and in its attempt. */
  private record StoredPoint(long seq, Long index, ReportedPoint point) {}

  private final Map<String, MetricsState> metricsStates = new HashMap<>();

  /** Where reading a job's metrics stands: the columns a database store keeps on the job. */
  private record MetricsState(
      int attempt,
      ReadingState cursor,
      Map<String, Double> latest,
      Double value,
      Double best,
      boolean done) {
    static final MetricsState NONE =
        new MetricsState(1, ReadingState.START, Map.of(), null, null, false);
  }

  /**
   * Stores a sweep's metric and rule, as the sweeps table holds them for a database store; its
   * trials read them from here.
   */
  public synchronized void defineSweep(SweepObjective sweep) {
    sweeps.put(sweep.sweepId(), sweep);
  }

  // What the database stores keep in sweeps.max_concurrent; this store has no sweeps of its own.
  private final Map<String, Integer> maxConcurrent = new HashMap<>();

  /** Limits the running trials of this sweep, as a sweep's {@code maxConcurrent} does. */
  public synchronized void limitTrials(String sweepId, int limit) {
    maxConcurrent.put(sweepId, limit);
  }

  @Override
  public synchronized Job submit(NewJob job) {
    if (job.idempotencyKey() != null && findByKey(job.owner(), job.idempotencyKey()).isPresent()) {
      throw new IdempotencyKeyTakenException(job.owner(), job.idempotencyKey(), null);
    }
    if (jobs.containsKey(job.id())) {
      throw new IllegalArgumentException("a job with id " + job.id() + " is stored already");
    }
    Job stored = job.job();
    jobs.put(stored.id(), stored);
    return stored.copy();
  }

  @Override
  public synchronized Job submit(NewJob job, long maxQueued) {
    long queued =
        jobs.values().stream()
            .filter(j -> j.owner().equals(job.owner()) && j.state() == JobState.QUEUED)
            .count();
    if (queued + 1 > maxQueued) {
      throw new TooManyQueuedJobsException(maxQueued, queued, 1);
    }
    return submit(job);
  }

  @Override
  public synchronized Optional<Job> find(String id) {
    return Optional.ofNullable(jobs.get(id)).map(Job::copy);
  }

  @Override
  public synchronized Optional<Job> findByKey(String owner, String idempotencyKey) {
    return jobs.values().stream()
        .filter(j -> j.owner().equals(owner) && idempotencyKey.equals(j.idempotencyKey()))
        .findFirst()
        .map(Job::copy);
  }

  @Override
  public synchronized JobPage page(JobFilter filter) {
    List<Job> rows =
        jobs.values().stream()
            .filter(matching(filter))
            .sorted(Comparator.comparing(Job::id).reversed())
            .limit(filter.limit() + 1L)
            .map(Job::copy)
            .toList();
    if (rows.size() <= filter.limit()) {
      return new JobPage(rows, null);
    }
    List<Job> page = rows.subList(0, filter.limit());
    return new JobPage(List.copyOf(page), page.get(page.size() - 1).id());
  }

  private static Predicate<Job> matching(JobFilter filter) {
    return job ->
        (filter.owner() == null || filter.owner().equals(job.owner()))
            && (filter.state() == null || filter.state() == job.state())
            && (filter.beforeId() == null || job.id().compareTo(filter.beforeId()) < 0)
            && job.labels().entrySet().containsAll(filter.labels().entrySet());
  }

  @Override
  public synchronized QueueHead queueHead(
      int cpuPerOwner, int cpuOnlyLimit, int gpuPerOwner, int gpuLimit) {
    Map<String, TrialSlots> slots = trialSlots();
    Set<String> full = new HashSet<>();
    slots.forEach(
        (sweep, s) -> {
          if (s.full()) {
            full.add(sweep);
          }
        });
    List<QueuedJob> cpu = queued(job -> job.gpus() == 0, full, cpuPerOwner, cpuOnlyLimit);
    List<QueuedJob> gpu = queued(job -> job.gpus() > 0, full, gpuPerOwner, gpuLimit);
    Map<String, TrialSlots> limited = new HashMap<>();
    slots.forEach(
        (sweep, s) -> {
          boolean inHead =
              cpu.stream().anyMatch(job -> sweep.equals(job.sweepId()))
                  || gpu.stream().anyMatch(job -> sweep.equals(job.sweepId()));
          if (s.full() || inHead) {
            limited.put(sweep, s);
          }
        });
    return new QueueHead(cpu, gpu, limited);
  }

  private Map<String, TrialSlots> trialSlots() {
    Map<String, TrialSlots> slots = new HashMap<>();
    maxConcurrent.forEach(
        (sweep, limit) -> {
          long running =
              jobs.values().stream()
                  .filter(job -> job.state() == JobState.RUNNING)
                  .filter(job -> job.sweepTrial().map(t -> t.sweepId().equals(sweep)).orElse(false))
                  .count();
          slots.put(sweep, new TrialSlots(limit, running));
        });
    return slots;
  }

  private List<QueuedJob> queued(
      Predicate<Job> kind, Set<String> fullSweeps, int perOwner, int limit) {
    Map<String, Integer> ranks = new HashMap<>();
    Map<String, Integer> rankOf = new HashMap<>();
    List<Job> ranked =
        jobs.values().stream()
            .filter(job -> job.state() == JobState.QUEUED && !job.held() && kind.test(job))
            .filter(
                job -> job.sweepTrial().map(t -> !fullSweeps.contains(t.sweepId())).orElse(true))
            .sorted(QUEUE_ORDER)
            .filter(job -> rankOf.put(job.id(), ranks.merge(job.owner(), 1, Integer::sum)) == null)
            .filter(job -> rankOf.get(job.id()) <= perOwner)
            .toList();
    return ranked.stream()
        .sorted(
            Comparator.comparing((Job job) -> rankOf.get(job.id()))
                .thenComparing(Job::queuedAt)
                .thenComparing(Job::id))
        .limit(limit)
        .map(
            job ->
                new QueuedJob(
                    job.id(),
                    job.owner(),
                    job.gpus(),
                    job.gpuMemoryBytes(),
                    job.gpuFraction(),
                    job.priority(),
                    job.queuedAt(),
                    job.nodeSelector(),
                    job.sweepTrial().map(SweepTrial::sweepId).orElse(null),
                    job.host().cpus(),
                    job.host().memoryBytes(),
                    job.preemption().preemptible()))
        .toList();
  }

  @Override
  public Map<String, Held> heldByOwner() {
    return heldByOwner(job -> true);
  }

  @Override
  public Map<String, Held> heldByOwnerOn(String node) {
    return heldByOwner(job -> node.equals(job.node()));
  }

  private synchronized Map<String, Held> heldByOwner(Predicate<Job> where) {
    Map<String, Held> held = new HashMap<>();
    for (Job job : jobs.values()) {
      if (job.state() != JobState.RUNNING || !where.test(job)) {
        continue;
      }
      Cpus cores = job.host().cpus();
      long memory = job.host().memoryBytes() == null ? 0 : job.host().memoryBytes();
      Held of;
      if (job.gpus() == 0) {
        of = new Held(0, 0, 1, cores, memory, 1, 0, 0);
      } else {
        long budget = job.placement() == null ? 0 : job.placement().budgetBytesPerGpu();
        boolean whole = job.gpuMemoryBytes() == null && job.gpuFraction() == null;
        double fractions = job.gpuFraction() == null ? 0 : job.gpus() * job.gpuFraction();
        long asked = job.gpuMemoryBytes() == null ? 0 : budget * job.gpus();
        of =
            new Held(
                budget * job.gpus(), whole ? job.gpus() : 0, 0, cores, memory, 1, fractions, asked);
      }
      held.merge(job.owner(), of, Held::plus);
    }
    return held;
  }

  @Override
  public synchronized List<ClaimedJob> claim(
      Map<String, JobPlacement> placements, Instant now, StartLimits limits) {
    if (limits.limitedOwners().isEmpty()) {
      return claim(placements, now);
    }
    Set<String> past = limits.pastLimits(List.copyOf(placements.keySet()), heldByOwner());
    Map<String, JobPlacement> allowed = new LinkedHashMap<>(placements);
    allowed.keySet().removeAll(past);
    return claim(allowed, now);
  }

  @Override
  public synchronized List<ClaimedJob> claim(Map<String, JobPlacement> placements, Instant now) {
    List<ClaimedJob> startable = new ArrayList<>();
    placements.forEach(
        (id, placement) -> {
          Job job = jobs.get(id);
          if (job != null && JobTransition.START.isAllowedFrom(job.state())) {
            startable.add(ClaimedJob.of(job));
          }
        });
    List<ClaimedJob> claimed = new ArrayList<>();
    for (ClaimedJob allowed : ClaimedJob.withinTrialLimits(startable, trialSlots())) {
      Job job = jobs.get(allowed.id());
      job.start(placements.get(job.id()), now);
      claimed.add(ClaimedJob.of(job));
    }
    return claimed;
  }

  @Override
  public synchronized <T> Optional<T> update(String id, Function<Job, T> change) {
    return Optional.ofNullable(jobs.get(id)).map(change);
  }

  @Override
  public synchronized boolean preemptFor(
      String servedJobId, String node, Map<String, Integer> victimAttempts) {
    return JobStore.preemptIn(this::update, servedJobId, node, victimAttempts);
  }

  @Override
  public synchronized List<Job> runningOn(String node) {
    return jobs.values().stream()
        .filter(job -> job.state() == JobState.RUNNING && node.equals(job.node()))
        .map(Job::copy)
        .toList();
  }

  @Override
  public synchronized List<LostAttempt> lostAttemptsOn(String node, Instant declaredSince) {
    List<LostAttempt> lost = new ArrayList<>();
    for (Job job : jobs.values()) {
      for (JobAttempt attempt : job.attempts()) {
        if (node.equals(attempt.node())
            && attempt.failureReason() == FailureReason.LOST
            && !attempt.finishedAt().isBefore(declaredSince)) {
          lost.add(
              new LostAttempt(job.id(), attempt.attempt(), attempt.pid(), attempt.pidStartTicks()));
        }
      }
    }
    return lost;
  }

  @Override
  public synchronized List<StoppedAttempt> stoppedAttemptsOn(String node, Instant endedSince) {
    List<StoppedAttempt> stopped = new ArrayList<>();
    for (Job job : jobs.values()) {
      if (StoppedAttempts.STATES.contains(job.state())
          && node.equals(job.node())
          && (job.finishedAt() == null || !job.finishedAt().isBefore(endedSince))) {
        job.attempts().stream()
            .filter(a -> a.attempt() == job.attempt() && node.equals(a.node()))
            .filter(a -> a.exitCode() == null)
            .findFirst()
            .ifPresent(a -> stopped.add(StoppedAttempts.of(job, a)));
      }
    }
    return stopped;
  }

  @Override
  public synchronized AttemptStanding standingOf(String jobId, int attempt, String node) {
    Job job = jobs.get(jobId);
    return job == null ? AttemptStanding.GONE : AttemptStanding.of(job, attempt, node);
  }

  @Override
  public synchronized Set<String> endedAmong(Collection<String> ids) {
    Set<String> ended = new HashSet<>();
    for (String id : ids) {
      Job job = jobs.get(id);
      if (job != null && job.state().isTerminal()) {
        ended.add(id);
      }
    }
    return ended;
  }

  @Override
  public synchronized Optional<Long> peakGpuMemoryOf(String id, int attempt) {
    return Optional.ofNullable(jobs.get(id)).stream()
        .flatMap(job -> job.attempts().stream())
        .filter(a -> a.attempt() == attempt)
        .map(JobAttempt::peakGpuMemoryBytes)
        .filter(Objects::nonNull)
        .findFirst();
  }

  @Override
  public synchronized List<ReportingJob> jobsReportingOn(String node, String afterId, int limit) {
    List<ReportingJob> reporting = new ArrayList<>();
    for (Job job : jobs.values()) {
      MetricsState state = metricsStates.getOrDefault(job.id(), MetricsState.NONE);
      if (node.equals(job.node())
          && job.state() != JobState.QUEUED
          && !state.done()
          && (afterId == null || job.id().compareTo(afterId) > 0)) {
        SweepObjective sweep =
            job.sweepTrial()
                .map(
                    t ->
                        sweeps.getOrDefault(
                            t.sweepId(), new SweepObjective(t.sweepId(), null, null, null)))
                .orElse(null);
        boolean newAttempt = state.attempt() != job.attempt();
        reporting.add(
            new ReportingJob(
                job.id(),
                job.attempt(),
                newAttempt,
                job.state().isTerminal(),
                job.startedAt(),
                newAttempt ? ReadingState.START : state.cursor(),
                newAttempt ? Map.of() : state.latest(),
                newAttempt ? null : state.value(),
                newAttempt ? null : state.best(),
                sweep));
      }
    }
    reporting.sort(Comparator.comparing(ReportingJob::jobId));
    return reporting.size() > limit ? List.copyOf(reporting.subList(0, limit)) : reporting;
  }

  @Override
  public synchronized void recordMetrics(MetricsUpdate update) {
    Job job = jobs.get(update.jobId());
    if (job == null || job.attempt() != update.attempt()) {
      return;
    }
    List<StoredPoint> stored = metrics.computeIfAbsent(update.jobId(), id -> new ArrayList<>());
    if (update.thin()) {
      stored.removeIf(
          p ->
              p.point().attempt() == update.attempt()
                  && p.index() != null
                  && !MetricsCaps.keeps(p.index(), update.next().stride()));
    }
    if (!update.points().isEmpty()) {
      // A resumed attempt replaces its run's earlier attempts' steps from its first on (issue 35).
      int runBefore = runBefore(job);
      long from = update.points().stream().mapToLong(ReportedPoint::step).min().orElseThrow();
      stored.removeIf(
          p ->
              p.point().attempt() > runBefore
                  && p.point().attempt() < update.attempt()
                  && p.point().step() >= from);
    }
    long seq = stored.isEmpty() ? 0 : stored.get(stored.size() - 1).seq() + 1;
    for (int i = 0; i < update.points().size(); i++) {
      ReportedPoint p = update.points().get(i);
      stored.add(
          new StoredPoint(
              seq++,
              update.indexOf(i),
              new ReportedPoint(update.attempt(), p.step(), p.values(), p.at())));
    }
    metricsStates.put(
        update.jobId(),
        new MetricsState(
            update.attempt(),
            update.next(),
            update.latest(),
            MetricsJson.finiteOrNull(update.metricValue()),
            MetricsJson.finiteOrNull(update.metricBest()),
            update.done()));
    String metricName =
        job.sweepTrial().map(t -> sweeps.get(t.sweepId())).map(SweepObjective::name).orElse(null);
    job.recordMetrics(
        update.latest().isEmpty() ? null : MetricsJson.writeValues(update.latest()),
        update.step(),
        update.metricBest(),
        metricName);
  }

  @Override
  public synchronized List<ReportedPoint> metricsOf(String jobId, int limit) {
    return metrics.getOrDefault(jobId, List.of()).stream()
        .limit(limit)
        .map(StoredPoint::point)
        .map(p -> new ReportedPoint(p.attempt(), p.step(), finite(p.values()), p.at()))
        .toList();
  }

  @Override
  public synchronized MetricsPage metricsPage(String jobId, long after, int limit, long maxBytes) {
    List<ReportedPoint> page = new ArrayList<>();
    Long nextAfter = null;
    long bytes = 0;
    long lastSeq = after;
    for (StoredPoint stored : metrics.getOrDefault(jobId, List.of())) {
      if (stored.seq() <= after) {
        continue;
      }
      ReportedPoint p = stored.point();
      // What a database store counts: the stored JSON of the values, and the point's own fields.
      bytes += MetricsJson.writeValues(p.values()).length() + 96;
      if (page.size() == limit || (!page.isEmpty() && bytes > maxBytes)) {
        nextAfter = lastSeq;
        break;
      }
      lastSeq = stored.seq();
      page.add(new ReportedPoint(p.attempt(), p.step(), finite(p.values()), p.at()));
    }
    Job job = jobs.get(jobId);
    MetricsState state = metricsStates.getOrDefault(jobId, MetricsState.NONE);
    if (job == null || state.attempt() != job.attempt()) {
      return new MetricsPage(page, nextAfter, 0, 0, false);
    }
    ReadingState cursor = state.cursor();
    return new MetricsPage(
        page, nextAfter, cursor.skippedLines(), cursor.skippedValues(), cursor.cut());
  }

  // As a database store reads them back: NaN and the infinities are stored as null.
  private static Map<String, Double> finite(Map<String, Double> values) {
    Map<String, Double> finite = new java.util.LinkedHashMap<>();
    values.forEach((name, value) -> finite.put(name, MetricsJson.finiteOrNull(value)));
    return finite;
  }

  @Override
  public synchronized List<TrialSeries> sweepSeries(String sweepId, String metric) {
    return jobs.values().stream()
        .filter(job -> job.sweepTrial().map(t -> t.sweepId().equals(sweepId)).orElse(false))
        .sorted(Comparator.comparingInt(job -> job.sweepTrial().orElseThrow().number()))
        .map(
            job ->
                new TrialSeries(
                    job.id(),
                    job.sweepTrial().orElseThrow().number(),
                    job.state(),
                    job.node(),
                    metrics.getOrDefault(job.id(), List.of()).stream()
                        .map(StoredPoint::point)
                        .filter(p -> p.attempt() <= job.attempt() && p.attempt() > runBefore(job))
                        .filter(p -> p.values().containsKey(metric))
                        .map(p -> new TrialSeries.Value(p.step(), valueOf(p, metric), p.at()))
                        .toList()))
        .toList();
  }

  /**
   * The last attempt before the job's current one that did not end {@code PREEMPTED}, or 0: the
   * attempts after it are one run, whose metrics are one series (issue 35).
   */
  private static int runBefore(Job job) {
    int before = 0;
    for (JobAttempt attempt : job.attempts()) {
      if (attempt.attempt() < job.attempt() && attempt.outcome() != JobState.PREEMPTED) {
        before = Math.max(before, attempt.attempt());
      }
    }
    return before;
  }

  private static double valueOf(ReportedPoint point, String metric) {
    Double value = MetricsJson.finiteOrNull(point.values().get(metric));
    return value == null ? Double.NaN : value;
  }

  @Override
  public synchronized Map<JobState, Long> countByState() {
    Map<JobState, Long> counts = new EnumMap<>(JobState.class);
    for (JobState state : JobState.ofJobs()) {
      counts.put(state, 0L);
    }
    jobs.values().forEach(job -> counts.merge(job.state(), 1L, Long::sum));
    return counts;
  }
}
