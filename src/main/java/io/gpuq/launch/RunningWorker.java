package io.gpuq.launch;

import io.gpuq.job.JobPlacement;
import java.time.Instant;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicReference;

/**
 * A live worker process on this node: the session leader of the job's process tree, so its PID is
 * also the process-group id. It is either a child of this gpuq or a worker adopted after a restart,
 * whose exit code then comes from the file its wrapper writes.
 */
public final class RunningWorker {

  private final String jobId;
  private final int attempt;
  private final ProcessHandle handle;
  private final CompletableFuture<Integer> exitCode;
  private final Instant startedAt;
  private final Instant deadline;
  private final JobPlacement placement;
  private final AtomicReference<Stop> stop = new AtomicReference<>();

  private record Stop(StopReason reason, String detail) {}

  /**
   * @param exitCode completes when the process has exited, with its exit code, or null when it is
   *     unknown (an adopted worker that died without its wrapper writing one)
   */
  public RunningWorker(
      String jobId,
      int attempt,
      ProcessHandle handle,
      CompletableFuture<Integer> exitCode,
      Instant startedAt,
      Instant deadline,
      JobPlacement placement) {
    this.jobId = jobId;
    this.attempt = attempt;
    this.handle = handle;
    this.exitCode = exitCode;
    this.startedAt = startedAt;
    this.deadline = deadline;
    this.placement = placement;
  }

  public String jobId() {
    return jobId;
  }

  public int attempt() {
    return attempt;
  }

  public long pid() {
    return handle.pid();
  }

  public CompletableFuture<Integer> exitCode() {
    return exitCode;
  }

  public Instant startedAt() {
    return startedAt;
  }

  /** When its timeout runs out, or null. */
  public Instant deadline() {
    return deadline;
  }

  /** The GPUs and budget it holds until its process exits. */
  public JobPlacement placement() {
    return placement;
  }

  /** Records why gpuq stops it; only the first reason counts. Returns whether this one did. */
  public boolean markStopping(StopReason reason) {
    return markStopping(reason, null);
  }

  /**
   * Records why gpuq stops it, with that reason in words and numbers ({@link
   * WorkerExit#stopDetail}); only the first reason counts. Returns whether this one did.
   */
  public boolean markStopping(StopReason reason, String detail) {
    return stop.compareAndSet(null, new Stop(reason, detail));
  }

  /** Why gpuq stopped it, or null if it ended by itself. */
  public StopReason stopReason() {
    Stop s = stop.get();
    return s == null ? null : s.reason();
  }

  /** The words given with {@link #stopReason}, or null. */
  public String stopDetail() {
    Stop s = stop.get();
    return s == null ? null : s.detail();
  }
}
