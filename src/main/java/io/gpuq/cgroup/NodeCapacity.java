package io.gpuq.cgroup;

/**
 * What a node can give its jobs: cores and host memory, once its reservation is set aside.
 *
 * @param cpus at least 1
 * @param memoryBytes 0 when the reservation takes it all
 */
public record NodeCapacity(int cpus, long memoryBytes) {

  public NodeCapacity {
    if (cpus < 1 || memoryBytes < 0) {
      throw new IllegalArgumentException(cpus + " CPUs, " + memoryBytes + " bytes");
    }
  }
}
