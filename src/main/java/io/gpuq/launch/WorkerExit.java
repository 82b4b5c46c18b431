package io.gpuq.launch;

import java.time.Instant;

/**
 * A worker's process ended.
 *
 * @param exitCode its exit code (128 + N when it died of signal N), or null when nobody saw it: an
 *     adopted worker that died without its wrapper writing one
 * @param stopReason why gpuq stopped it, or null when it ended by itself
 * @param stopDetail that reason in words with its numbers ("it used 1.3GiB on GPU 0, over ..."), or
 *     null for the reason's plain words
 * @param endedAt when it ended: when its place was freed (for a worker gpuq watched), or when its
 *     exit file was written (for one that ended while gpuq was down); null for "just now"
 * @param group what its cgroup said of its end ({@link WorkerGroupEnd#NONE} without one)
 */
public record WorkerExit(
    String jobId,
    int attempt,
    long pid,
    Integer exitCode,
    StopReason stopReason,
    String stopDetail,
    Instant endedAt,
    WorkerGroupEnd group) {

  public WorkerExit {
    group = group == null ? WorkerGroupEnd.NONE : group;
  }

  /** An exit gpuq has just seen, with the reason's plain words. */
  public WorkerExit(String jobId, int attempt, long pid, Integer exitCode, StopReason stopReason) {
    this(jobId, attempt, pid, exitCode, stopReason, null, null, WorkerGroupEnd.NONE);
  }
}
