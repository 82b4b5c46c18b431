package io.gpuq.fairshare;

/**
 * What the cluster has, over every live node: the denominators of an owner's shares.
 *
 * @param gpuMemoryBytes the memory of every GPU
 * @param gpus the GPUs
 * @param cpuSlots the slots for CPU-only jobs
 */
public record Capacity(long gpuMemoryBytes, long gpus, long cpuSlots) {

  public Capacity {
    if (gpuMemoryBytes < 0 || gpus < 0 || cpuSlots < 0) {
      throw new IllegalArgumentException("capacity must not be negative");
    }
  }

  /**
   * The largest of what {@code held} is of each resource (0 for a resource the cluster lacks), and
   * which resource that is: Dominant Resource Fairness's dominant share.
   */
  public Dominant dominant(Held held) {
    Dominant best = new Dominant(Resource.GPU_MEMORY, ratio(held.gpuMemoryBytes(), gpuMemoryBytes));
    double gpuShare = ratio(held.wholeGpus(), gpus);
    if (gpuShare > best.share()) {
      best = new Dominant(Resource.WHOLE_GPUS, gpuShare);
    }
    double cpuShare = ratio(held.cpuSlots(), cpuSlots);
    if (cpuShare > best.share()) {
      best = new Dominant(Resource.CPU_SLOTS, cpuShare);
    }
    return best;
  }

  private static double ratio(long part, long whole) {
    return whole <= 0 ? 0 : (double) part / whole;
  }

  /** An owner's dominant share, and the resource it is a share of. */
  public record Dominant(Resource resource, double share) {}
}
