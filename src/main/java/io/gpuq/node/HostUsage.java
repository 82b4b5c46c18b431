package io.gpuq.node;

/**
 * What this node's workers use of its host at the last reading: CPU cores (CPU time per second of
 * their process trees, summed) and resident memory (bytes, summed).
 */
public record HostUsage(double cpus, long memoryBytes) {

  public static final HostUsage NONE = new HostUsage(0, 0);

  public HostUsage {
    if (cpus < 0 || memoryBytes < 0) {
      throw new IllegalArgumentException(cpus + " CPUs, " + memoryBytes + " bytes");
    }
  }
}
