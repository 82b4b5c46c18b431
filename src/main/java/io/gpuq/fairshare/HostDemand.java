package io.gpuq.fairshare;

/**
 * What a job takes of its node besides GPUs: counted in its owner's dominant share once it runs.
 *
 * @param cores its {@code resources.cpus}
 * @param memoryBytes its {@code resources.memory}; 0 when it reserves none
 */
public record HostDemand(int cores, long memoryBytes) {

  /** A job that asked for neither: 1 core, no memory reserved. */
  public static final HostDemand DEFAULT = new HostDemand(1, 0);

  public HostDemand {
    if (cores < 0 || memoryBytes < 0) {
      throw new IllegalArgumentException("cores and memory must not be negative");
    }
  }
}
