package io.gpuq.job;

import jakarta.persistence.CollectionTable;
import jakarta.persistence.Column;
import jakarta.persistence.Convert;
import jakarta.persistence.ElementCollection;
import jakarta.persistence.Entity;
import jakarta.persistence.EnumType;
import jakarta.persistence.Enumerated;
import jakarta.persistence.FetchType;
import jakarta.persistence.Id;
import jakarta.persistence.JoinColumn;
import jakarta.persistence.MapKeyColumn;
import jakarta.persistence.OneToMany;
import jakarta.persistence.OrderBy;
import jakarta.persistence.Table;
import jakarta.persistence.Version;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.hibernate.annotations.BatchSize;
import org.hibernate.annotations.Fetch;
import org.hibernate.annotations.FetchMode;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A training run and its history. Its state changes only through the intention-named methods below,
 * each of which asks {@link JobTransition} whether the move is allowed.
 */
@Entity
@Table(name = "jobs")
public class Job {

  private static final Logger log = LoggerFactory.getLogger(Job.class);

  /** A page of the longest listing (1,000) and its look-ahead row: one batch loads them all. */
  static final int ASSOCIATION_BATCH = 1001;

  @Id private String id;

  @Column(nullable = false)
  private String owner;

  @Column(nullable = false)
  private String name;

  @Enumerated(EnumType.STRING)
  @Column(nullable = false)
  private JobState state;

  @Enumerated(EnumType.STRING)
  private FailureReason failureReason;

  private String failureMessage;
  private Integer exitCode;

  @Column(nullable = false)
  private int attempt;

  @Convert(converter = JsonColumns.StringList.class)
  @Column(nullable = false)
  private List<String> command;

  private String workingDir;

  @Convert(converter = JsonColumns.StringMap.class)
  @Column(nullable = false)
  private Map<String, String> env;

  @Enumerated(EnumType.STRING)
  @Column(nullable = false)
  private Framework framework;

  @Column(nullable = false)
  private int gpus;

  // The budget the next (or running) attempt gets: the request, grown after memory failures.
  private Long gpuMemoryBytes;
  private Double gpuFraction;

  // The budget as submitted, never grown.
  private Long requestedGpuMemoryBytes;
  private Double requestedGpuFraction;

  @Column(nullable = false)
  private int priority;

  private Long timeoutMillis;

  @Column(nullable = false)
  private int maxAttempts;

  @Column(nullable = false)
  private double oomGrowth;

  @ElementCollection(fetch = FetchType.EAGER)
  @CollectionTable(name = "job_labels", joinColumns = @JoinColumn(name = "job_id"))
  @MapKeyColumn(name = "label_key")
  @Column(name = "label_value", nullable = false)
  @Fetch(FetchMode.SELECT)
  @BatchSize(size = ASSOCIATION_BATCH)
  private Map<String, String> labels = new HashMap<>();

  private String idempotencyKey;
  private String node;

  @Convert(converter = JsonColumns.StringMap.class)
  private Map<String, String> nodeSelector;

  @Convert(converter = JsonColumns.Placement.class)
  private JobPlacement placement;

  private Long peakGpuMemoryBytes;

  @Column(nullable = false)
  private Instant createdAt;

  @Column(nullable = false)
  private Instant queuedAt;

  private Instant startedAt;
  private Instant finishedAt;

  // Eager, as jobs are always shown with their labels and attempts: one extra query per page of
  // up to ASSOCIATION_BATCH jobs, for those jobs only. Not SUBSELECT: it re-runs the page's query
  // without its limit, loading the associations of every job the filter matches (all SUCCEEDED
  // jobs for one page of them).
  @OneToMany(
      mappedBy = "job",
      cascade = jakarta.persistence.CascadeType.ALL,
      orphanRemoval = true,
      fetch = FetchType.EAGER)
  @OrderBy("attempt")
  @Fetch(FetchMode.SELECT)
  @BatchSize(size = ASSOCIATION_BATCH)
  private List<JobAttempt> attempts = new ArrayList<>();

  // Nullable, so that a new entity with its own id is persisted, not merged (no select first).
  @Version private Long version;

  protected Job() {}

  /** A new job, queued for its first attempt. */
  public static Job submit(
      String id, String owner, JobSpec spec, String idempotencyKey, Instant now) {
    Job job = new Job();
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
    job.gpuMemoryBytes = spec.gpuMemoryBytes();
    job.gpuFraction = spec.gpuFraction();
    job.requestedGpuMemoryBytes = spec.gpuMemoryBytes();
    job.requestedGpuFraction = spec.gpuFraction();
    job.priority = spec.priority();
    job.timeoutMillis = spec.timeout() == null ? null : spec.timeout().toMillis();
    job.maxAttempts = spec.maxAttempts();
    job.oomGrowth = spec.oomGrowth();
    job.labels = new HashMap<>(spec.labels());
    job.nodeSelector = spec.nodeSelector().isEmpty() ? null : spec.nodeSelector();
    job.idempotencyKey = idempotencyKey;
    job.createdAt = now;
    job.queuedAt = now;
    return job;
  }

  /**
   * The job was placed and its worker is being launched. The scheduler's claims write the same
   * without loading the job ({@link JobStartWrites}): a change here belongs there too (the
   * repository contract compares the two).
   */
  public void start(JobPlacement placement, Instant now) {
    move(JobTransition.START);
    this.placement = placement;
    this.node = placement.node();
    this.startedAt = now;
    this.failureReason = null;
    this.failureMessage = null;
    this.exitCode = null;
    attempts.add(new JobAttempt(this, attempt, placement, now));
  }

  /** The worker exited with code 0. */
  public void succeed(int exitCode, Instant now) {
    move(JobTransition.SUCCEED);
    this.exitCode = exitCode;
    this.finishedAt = now;
    currentAttempt().end(JobState.SUCCEEDED, null, null, exitCode, now);
  }

  /**
   * The attempt failed. With attempts left (and a failure worth retrying) the job goes back to the
   * queue, with a budget grown by {@code oomGrowth} after a memory failure; otherwise it fails.
   *
   * @param gpuMemoryCapBytes the largest per-GPU budget a grown request may reach (the GPU's size)
   * @return the state the job is in now: {@code QUEUED} or {@code FAILED}
   */
  public JobState failAttempt(
      FailureReason reason, String message, Integer exitCode, long gpuMemoryCapBytes, Instant now) {
    currentAttempt().end(JobState.FAILED, reason, message, exitCode, now);
    if (attempt < maxAttempts && reason.isRetried()) {
      requeueForRetry(reason, gpuMemoryCapBytes, now);
    } else {
      move(JobTransition.FAIL);
      this.failureReason = reason;
      this.failureMessage = message;
      this.exitCode = exitCode;
      this.finishedAt = now;
    }
    return state;
  }

  private void requeueForRetry(FailureReason reason, long gpuMemoryCapBytes, Instant now) {
    move(JobTransition.REQUEUE_FOR_RETRY);
    if (reason.isMemoryFailure()) {
      growBudget(gpuMemoryCapBytes);
    }
    attempt++;
    placement = null;
    node = null;
    startedAt = null;
    queuedAt = now;
    peakGpuMemoryBytes = null;
  }

  private void growBudget(long capBytes) {
    if (gpuMemoryBytes != null) {
      long grown = (long) Math.ceil(gpuMemoryBytes * oomGrowth);
      gpuMemoryBytes = capBytes > 0 ? Math.min(grown, capBytes) : grown;
    } else if (gpuFraction != null) {
      gpuFraction = Math.min(1.0, gpuFraction * oomGrowth);
    }
  }

  /** The user cancelled the job; a running worker is being stopped. */
  public void cancel(Instant now) {
    move(JobTransition.CANCEL);
    this.finishedAt = now;
    if (!attempts.isEmpty() && currentAttempt().isOpen()) {
      currentAttempt().end(JobState.CANCELLED, null, "cancelled by the user", null, now);
    }
  }

  /** A worker that was already cancelled has now exited; keep its exit code on the attempt. */
  public void recordExitAfterCancel(Integer exitCode) {
    if (!attempts.isEmpty()) {
      currentAttempt().recordExitCode(exitCode);
    }
    this.exitCode = exitCode;
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

  private void move(JobTransition transition) {
    JobState from = state;
    try {
      state = transition.applyTo(id, from);
    } catch (IllegalTransitionException e) {
      log.error("BUG: {}; the job is left as it was", e.getMessage(), e);
      throw e;
    }
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

  /** The request as this job stored it, for telling a retried submission from another. */
  public JobSpec spec() {
    return new JobSpec(
        name,
        command,
        workingDir,
        env == null ? Map.of() : env,
        framework,
        gpus,
        gpuMemoryBytes,
        gpuFraction,
        priority,
        timeout(),
        maxAttempts,
        oomGrowth,
        labels(),
        nodeSelector());
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
