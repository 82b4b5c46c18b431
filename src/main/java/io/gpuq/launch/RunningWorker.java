package io.gpuq.launch;

import io.gpuq.job.JobPlacement;
import java.time.Instant;
import java.util.concurrent.atomic.AtomicReference;

/**
 * A live worker process on this node: the session leader of the job's process tree, so its PID is
 * also the process-group id.
 */
public final class RunningWorker {

  private final String jobId;
  private final int attempt;
  private final Process process;
  private final Instant startedAt;
  private final Instant deadline;
  private final JobPlacement placement;
  private final AtomicReference<StopReason> stopReason = new AtomicReference<>();

  public RunningWorker(
      String jobId,
      int attempt,
      Process process,
      Instant startedAt,
      Instant deadline,
      JobPlacement placement) {
    this.jobId = jobId;
    this.attempt = attempt;
    this.process = process;
    this.startedAt = startedAt;
    this.deadline = deadline;
    this.placement = placement;
  }

  /** The GPUs and budget it holds until its process exits. */
  public JobPlacement placement() {
    return placement;
  }

  public String jobId() {
    return jobId;
  }

  public int attempt() {
    return attempt;
  }

  public long pid() {
    return process.pid();
  }

  public Process process() {
    return process;
  }

  public Instant startedAt() {
    return startedAt;
  }

  /** When its timeout runs out, or null. */
  public Instant deadline() {
    return deadline;
  }

  /** Records why gpuq stops it; only the first reason counts. Returns whether this one did. */
  public boolean markStopping(StopReason reason) {
    return stopReason.compareAndSet(null, reason);
  }

  /** Why gpuq stopped it, or null if it ended by itself. */
  public StopReason stopReason() {
    return stopReason.get();
  }
}
