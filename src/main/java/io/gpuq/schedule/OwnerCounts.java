package io.gpuq.schedule;

import java.util.Map;

/**
 * How many jobs each owner has queued, over every node, for {@code GET /api/v1/owners} and the
 * {@code gpuq_owner_*} gauges: the one count the fair-share order does not read. What the owners'
 * running jobs hold comes from the pass's own query ({@code heldByOwner}), so that the report and
 * the limits count them by one rule. Written in SQL by {@code io.gpuq.storage.JdbcOwnerCounts}.
 */
public interface OwnerCounts {

  /** Each owner with a QUEUED job, and how many; an owner with none is absent. */
  Map<String, Long> queuedByOwner();

  /**
   * One owner's jobs.
   *
   * @param runningJobs their RUNNING jobs, GPU and CPU-only
   * @param gpus the GPUs their running jobs hold, whole GPUs and parts of shared ones added up, as
   *     {@code max-gpus} counts them ({@link io.gpuq.fairshare.Held#gpus})
   * @param cpus the {@code cpus} of their running jobs, added up
   * @param memoryBytes the host {@code memory} of their running jobs, added up (0 for a job
   *     without)
   * @param queuedJobs their QUEUED jobs
   */
  record Counted(long runningJobs, double gpus, long cpus, long memoryBytes, long queuedJobs) {

    public static final Counted NONE = new Counted(0, 0, 0, 0, 0);

    public Counted plus(Counted other) {
      return new Counted(
          runningJobs + other.runningJobs,
          gpus + other.gpus,
          cpus + other.cpus,
          memoryBytes + other.memoryBytes,
          queuedJobs + other.queuedJobs);
    }
  }
}
