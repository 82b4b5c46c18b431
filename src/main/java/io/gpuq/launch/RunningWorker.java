package io.gpuq.launch;

import io.gpuq.job.HostResources;
import io.gpuq.job.JobPlacement;
import java.time.Instant;
import java.util.concurrent.CompletableFuture;

/**
 * A live worker process on this node: the session leader of the job's process tree, so its PID is
 * also the process-group id. It is either a child of this gpuq or a worker adopted after a restart,
 * whose exit code then comes from the file its wrapper writes.
 *
 * @param exitCode completes when the process has exited, with its exit code, or null when it is
 *     unknown (an adopted worker that died without its wrapper writing one)
 * @param deadline when its timeout runs out, or null
 * @param placement the GPUs and budget it holds until its process exits
 * @param stop why gpuq stops it, once it does
 * @param host the cores and host memory it holds until its process exits
 */
public record RunningWorker(
    String jobId,
    int attempt,
    long pid,
    CompletableFuture<Integer> exitCode,
    Instant startedAt,
    Instant deadline,
    JobPlacement placement,
    StopMark stop,
    HostResources host) {

  public RunningWorker {
    host = host == null ? HostResources.ONE_CORE : host;
  }

  /** Records why gpuq stops it; only the first reason counts. Returns whether this one did. */
  public boolean markStopping(StopReason reason) {
    return stop.mark(reason, null);
  }

  /**
   * Records why gpuq stops it, with that reason in words and numbers ({@link
   * WorkerExit#stopDetail}); only the first reason counts. Returns whether this one did.
   */
  public boolean markStopping(StopReason reason, String detail) {
    return stop.mark(reason, detail);
  }

  /** Why gpuq stopped it, or null if it ended by itself. */
  public StopReason stopReason() {
    return stop.reason();
  }

  /** The words given with {@link #stopReason}, or null. */
  public String stopDetail() {
    return stop.detail();
  }
}
