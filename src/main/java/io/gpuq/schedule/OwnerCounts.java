package io.gpuq.schedule;

import io.gpuq.placement.PlacedGpu;
import java.util.List;
import java.util.Map;

/**
 * What each owner has in the queue and running, over every node, for {@code GET /api/v1/owners} and
 * the {@code gpuq_owner_*} gauges: counts the fair-share order does not need, read in one go.
 * Written in SQL by {@code io.gpuq.storage.JdbcOwnerCounts}.
 */
public interface OwnerCounts {

  /** Each owner with a RUNNING or QUEUED job; an owner with neither is absent. */
  Map<String, Counted> byOwner();

  /**
   * One owner's jobs.
   *
   * @param runningJobs their RUNNING jobs, GPU and CPU-only
   * @param gpus the GPUs their running jobs hold, whole GPUs and parts of shared ones added up
   *     ({@link #gpusOf})
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

  /**
   * The GPUs one running job holds: a whole-GPU job ({@code gpuMemory} and {@code gpuFraction} both
   * absent) each of its GPUs; a job given {@code gpuFraction} that fraction of each, as the user
   * asked for it (so 0.4 reads 0.4); a job given a budget in bytes that budget over each GPU's
   * total memory, from its placement. A placement recorded without the GPU's total (an older gpuq)
   * counts nothing for such a job rather than a guess.
   *
   * @param gpus the job's {@code gpus}
   * @param budgetBytes its budget per GPU when it asked for bytes, else null
   * @param fraction its fraction when it asked for one, else null
   * @param placed the GPUs its placement names, with their budgets and totals
   */
  static double gpusOf(int gpus, Long budgetBytes, Double fraction, List<PlacedGpu> placed) {
    if (gpus <= 0) {
      return 0;
    }
    if (budgetBytes == null && fraction == null) {
      return gpus;
    }
    if (fraction != null) {
      return gpus * fraction;
    }
    double held = 0;
    for (PlacedGpu gpu : placed) {
      if (gpu.totalBytes() > 0) {
        held += (double) gpu.memoryBytes() / gpu.totalBytes();
      }
    }
    return held;
  }
}
