package io.gpuq.job;

import io.gpuq.job.JobTransition.AttemptField;
import java.time.Instant;

/**
 * One attempt of a job: where it ran, with which budget, its process, peak and outcome. Plain Java:
 * the storage adapter maps it to {@code job_attempts} in {@code META-INF/orm.xml}, writing only
 * changed columns ({@code storage.AttemptDynamicUpdate}).
 */
public class JobAttempt {

  private Long id;

  private Job job;

  private int attempt;

  private String node;

  private JobPlacement placement;

  private long budgetBytes;

  private Long pid;
  private Long pidStartTicks;
  private String cores;
  private String coresBoundBy;

  private Instant startedAt;

  private Instant finishedAt;

  private JobState outcome;

  private FailureReason failureReason;

  private String failureMessage;
  private Integer exitCode;
  private Long peakGpuMemoryBytes;
  // The waiting job a fair-share preemption of this attempt served (issue 35); null otherwise.
  private String preemptedFor;

  protected JobAttempt() {}

  /** A new attempt, written by the transition that opens it ({@link JobTransition#OPENING}). */
  JobAttempt(Job job, int attempt) {
    this.job = job;
    this.attempt = attempt;
  }

  void set(AttemptField field, Object value) {
    switch (field) {
      case NODE -> node = (String) value;
      case PLACEMENT -> placement = (JobPlacement) value;
      case BUDGET_BYTES -> budgetBytes = (Long) value;
      case STARTED_AT -> startedAt = (Instant) value;
      case OUTCOME -> outcome = (JobState) value;
      case FAILURE_REASON -> failureReason = (FailureReason) value;
      case FAILURE_MESSAGE -> failureMessage = truncate((String) value);
      case EXIT_CODE -> exitCode = (Integer) value;
      case FINISHED_AT -> finishedAt = (Instant) value;
    }
  }

  void recordProcess(long pid, long startTicks, BoundCores cores) {
    this.pid = pid;
    this.pidStartTicks = startTicks;
    if (cores != null) {
      this.cores = cores.cpus();
      this.coresBoundBy = cores.boundBy();
    }
  }

  JobAttempt copyFor(Job owner) {
    JobAttempt copy = new JobAttempt(owner, attempt);
    copy.id = id;
    copy.node = node;
    copy.placement = placement;
    copy.budgetBytes = budgetBytes;
    copy.pid = pid;
    copy.pidStartTicks = pidStartTicks;
    copy.cores = cores;
    copy.coresBoundBy = coresBoundBy;
    copy.startedAt = startedAt;
    copy.finishedAt = finishedAt;
    copy.outcome = outcome;
    copy.failureReason = failureReason;
    copy.failureMessage = failureMessage;
    copy.exitCode = exitCode;
    copy.peakGpuMemoryBytes = peakGpuMemoryBytes;
    copy.preemptedFor = preemptedFor;
    return copy;
  }

  void recordExitCode(Integer exitCode) {
    this.exitCode = exitCode;
  }

  void observeGpuMemory(long bytes) {
    if (peakGpuMemoryBytes == null || bytes > peakGpuMemoryBytes) {
      peakGpuMemoryBytes = bytes;
    }
  }

  boolean isOpen() {
    return outcome == null;
  }

  private static String truncate(String message) {
    return message == null || message.length() <= 2000 ? message : message.substring(0, 2000);
  }

  public int attempt() {
    return attempt;
  }

  public String node() {
    return node;
  }

  public JobPlacement placement() {
    return placement;
  }

  public long budgetBytes() {
    return budgetBytes;
  }

  public Long pid() {
    return pid;
  }

  public Long pidStartTicks() {
    return pidStartTicks;
  }

  /** The cores its worker was given, and how it is held to them; null if none or not known. */
  public BoundCores cores() {
    return cores == null || coresBoundBy == null ? null : new BoundCores(cores, coresBoundBy);
  }

  public Instant startedAt() {
    return startedAt;
  }

  public Instant finishedAt() {
    return finishedAt;
  }

  public JobState outcome() {
    return outcome;
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

  public Long peakGpuMemoryBytes() {
    return peakGpuMemoryBytes;
  }

  /** The waiting job a fair-share preemption of this attempt served (issue 35); null otherwise. */
  public String preemptedFor() {
    return preemptedFor;
  }

  void recordPreemptedFor(String servedJobId) {
    this.preemptedFor = servedJobId;
  }
}
