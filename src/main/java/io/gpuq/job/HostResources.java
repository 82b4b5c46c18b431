package io.gpuq.job;

/**
 * What a job takes of its node besides GPUs: whole cores, and host memory.
 *
 * @param cpus cores, at least 1: the worker's thread counts follow them
 *     (docs/worker-environment.md)
 * @param memoryBytes host memory reserved for the job and its cap; null when none is asked for and
 *     none is configured by default: then nothing is reserved and nothing capped
 */
public record HostResources(int cpus, Long memoryBytes) {

  public HostResources {
    if (cpus < 1) {
      throw new IllegalArgumentException("a job takes at least 1 core, not " + cpus);
    }
    if (memoryBytes != null && memoryBytes <= 0) {
      throw new IllegalArgumentException("host memory must be positive, not " + memoryBytes);
    }
  }

  /** One core and no host memory set aside: what a job got before it could ask. */
  public static final HostResources ONE_CORE = new HostResources(1, null);
}
