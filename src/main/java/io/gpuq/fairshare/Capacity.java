package io.gpuq.fairshare;

import io.gpuq.text.Cpus;

/**
 * What the cluster has, over every live node: the denominators of an owner's shares.
 *
 * @param gpuMemoryBytes the memory of every GPU
 * @param gpus the GPUs
 * @param cpuSlots the slots for CPU-only jobs
 * @param cores the cores the nodes give their jobs (each node's allocatable cores)
 * @param hostMemoryBytes the host memory the nodes give their jobs (each node's allocatable memory)
 */
public record Capacity(
    long gpuMemoryBytes, long gpus, long cpuSlots, long cores, long hostMemoryBytes) {

  public Capacity {
    if (gpuMemoryBytes < 0 || gpus < 0 || cpuSlots < 0 || cores < 0 || hostMemoryBytes < 0) {
      throw new IllegalArgumentException("capacity must not be negative");
    }
  }

  /** GPUs and CPU slots only: no share of cores or host memory is counted. */
  public Capacity(long gpuMemoryBytes, long gpus, long cpuSlots) {
    this(gpuMemoryBytes, gpus, cpuSlots, 0, 0);
  }

  public Capacity plus(Capacity other) {
    return new Capacity(
        gpuMemoryBytes + other.gpuMemoryBytes,
        gpus + other.gpus,
        cpuSlots + other.cpuSlots,
        cores + other.cores,
        hostMemoryBytes + other.hostMemoryBytes);
  }

  /**
   * The largest of what {@code held} is of each resource (0 for a resource the cluster lacks), and
   * which resource that is: Dominant Resource Fairness's dominant share. On a tie the resource
   * listed first in {@link Resource} is named.
   */
  public Dominant dominant(Held held) {
    Dominant best = new Dominant(Resource.GPU_MEMORY, ratio(held.gpuMemoryBytes(), gpuMemoryBytes));
    best = larger(best, Resource.WHOLE_GPUS, ratio(held.wholeGpus(), gpus));
    best = larger(best, Resource.CPU_SLOTS, ratio(held.cpuSlots(), cpuSlots));
    // Fractions count as what they are: four jobs of 0.25 core hold one core's share.
    best = larger(best, Resource.CORES, ratio(held.cores().millis(), cores * Cpus.MILLIS_PER_CORE));
    return larger(best, Resource.HOST_MEMORY, ratio(held.hostMemoryBytes(), hostMemoryBytes));
  }

  private static Dominant larger(Dominant best, Resource resource, double share) {
    return share > best.share() ? new Dominant(resource, share) : best;
  }

  private static double ratio(long part, long whole) {
    return whole <= 0 ? 0 : (double) part / whole;
  }

  /** An owner's dominant share, and the resource it is a share of. */
  public record Dominant(Resource resource, double share) {}
}
