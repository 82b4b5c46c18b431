package io.gpuq.schedule;

import io.gpuq.job.AttemptEnd;
import io.gpuq.job.AttemptStanding;
import io.gpuq.job.ClaimedJob;
import io.gpuq.job.Job;
import io.gpuq.job.JobFilter;
import io.gpuq.job.JobPage;
import io.gpuq.job.JobPlacement;
import io.gpuq.job.JobState;
import io.gpuq.job.JobStore;
import io.gpuq.job.JobStoreUnavailableException;
import io.gpuq.job.LostAttempt;
import io.gpuq.job.NewJob;
import io.gpuq.job.QueueHead;
import io.gpuq.job.StoppedAttempt;
import io.gpuq.job.WorkerProcess;
import java.io.IOException;
import java.time.Duration;
import java.time.Instant;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;

/**
 * A store that writes attempts' ends a while after they are handed in: as the database store's
 * group commit does (it lingers to gather ends), what a worker's freed place and its stored end may
 * be apart by; or, {@link #afterUnavailable}, once a database that could not write comes back.
 */
final class EndsStoredLater implements JobStore {

  private final JobStore store;
  private final Function<AttemptEnd, CompletableFuture<JobState>> ending;

  EndsStoredLater(JobStore store, Duration delay) {
    this.store = store;
    this.ending =
        end ->
            CompletableFuture.supplyAsync(
                    () -> null,
                    CompletableFuture.delayedExecutor(delay.toMillis(), TimeUnit.MILLISECONDS))
                .thenCompose(ignored -> store.endAttempt(end));
  }

  private EndsStoredLater(
      JobStore store, Function<AttemptEnd, CompletableFuture<JobState>> ending) {
    this.store = store;
    this.ending = ending;
  }

  /**
   * A store whose database cannot write the first {@code refusals} ends handed in (H2 on a full
   * disk): each fails with {@link JobStoreUnavailableException}, as the database store's does.
   */
  static EndsStoredLater afterUnavailable(JobStore store, int refusals) {
    AtomicInteger left = new AtomicInteger(refusals);
    return new EndsStoredLater(
        store,
        end ->
            left.getAndDecrement() > 0
                ? CompletableFuture.failedFuture(
                    new JobStoreUnavailableException(new IOException("No space left on device")))
                : store.endAttempt(end));
  }

  @Override
  public CompletableFuture<JobState> endAttempt(AttemptEnd end) {
    return ending.apply(end);
  }

  @Override
  public <T> Optional<T> update(String id, Function<Job, T> change) {
    return store.update(id, change);
  }

  @Override
  public Job submit(NewJob job) {
    return store.submit(job);
  }

  @Override
  public Job submit(NewJob job, long maxQueued) {
    return store.submit(job, maxQueued);
  }

  @Override
  public Optional<Job> find(String id) {
    return store.find(id);
  }

  @Override
  public Optional<Job> findByKey(String owner, String idempotencyKey) {
    return store.findByKey(owner, idempotencyKey);
  }

  @Override
  public JobPage page(JobFilter filter) {
    return store.page(filter);
  }

  @Override
  public QueueHead queueHead(int cpuPerOwner, int cpuOnlyLimit, int gpuPerOwner, int gpuLimit) {
    return store.queueHead(cpuPerOwner, cpuOnlyLimit, gpuPerOwner, gpuLimit);
  }

  @Override
  public Map<String, io.gpuq.fairshare.Held> heldByOwner() {
    return store.heldByOwner();
  }

  @Override
  public Map<String, io.gpuq.fairshare.Held> heldByOwnerOn(String node) {
    return store.heldByOwnerOn(node);
  }

  @Override
  public List<ClaimedJob> claim(Map<String, JobPlacement> placements, Instant now) {
    return store.claim(placements, now);
  }

  @Override
  public List<ClaimedJob> claim(
      Map<String, JobPlacement> placements, Instant now, io.gpuq.fairshare.StartLimits limits) {
    return store.claim(placements, now, limits);
  }

  @Override
  public CompletableFuture<Void> recordProcess(WorkerProcess process) {
    return store.recordProcess(process);
  }

  @Override
  public JobState cancel(String id, Instant now) {
    return store.cancel(id, now);
  }

  @Override
  public void observeGpuMemory(String id, long bytes) {
    store.observeGpuMemory(id, bytes);
  }

  @Override
  public List<Job> runningOn(String node) {
    return store.runningOn(node);
  }

  @Override
  public List<LostAttempt> lostAttemptsOn(String node, Instant declaredSince) {
    return store.lostAttemptsOn(node, declaredSince);
  }

  @Override
  public List<StoppedAttempt> stoppedAttemptsOn(String node, Instant endedSince) {
    return store.stoppedAttemptsOn(node, endedSince);
  }

  @Override
  public AttemptStanding standingOf(String jobId, int attempt, String node) {
    return store.standingOf(jobId, attempt, node);
  }

  @Override
  public Set<String> endedAmong(Collection<String> ids) {
    return store.endedAmong(ids);
  }

  @Override
  public Optional<Long> peakGpuMemoryOf(String id, int attempt) {
    return store.peakGpuMemoryOf(id, attempt);
  }

  @Override
  public Map<JobState, Long> countByState() {
    return store.countByState();
  }

  @Override
  public boolean prune(String jobId, String why, Instant now) {
    return store.prune(jobId, why, now);
  }

  @Override
  public List<io.gpuq.reported.ReportingJob> jobsReportingOn(
      String node, String afterId, int limit) {
    return store.jobsReportingOn(node, afterId, limit);
  }

  @Override
  public void recordMetrics(io.gpuq.reported.MetricsUpdate update) {
    store.recordMetrics(update);
  }

  @Override
  public List<io.gpuq.reported.ReportedPoint> metricsOf(String jobId, int limit) {
    return store.metricsOf(jobId, limit);
  }

  @Override
  public io.gpuq.reported.MetricsPage metricsPage(
      String jobId, long after, int limit, long maxBytes) {
    return store.metricsPage(jobId, after, limit, maxBytes);
  }

  @Override
  public List<io.gpuq.job.TrialSeries> sweepSeries(String sweepId, String metric) {
    return store.sweepSeries(sweepId, metric);
  }
}
