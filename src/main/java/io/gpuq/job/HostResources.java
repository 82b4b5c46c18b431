package io.gpuq.job;

import io.gpuq.text.Cpus;
import java.util.Objects;

/**
 * What a job takes of its node besides GPUs: cores, whole or a fraction, and host memory.
 *
 * @param cpus cores, at least {@link Cpus#SMALLEST}: a whole number gets cores of its own, a
 *     fraction shares a pool of cores held to it by CPU bandwidth; the worker's thread counts
 *     follow them, rounded up (docs/worker-environment.md)
 * @param memoryBytes host memory reserved for the job and its cap; null when none is asked for and
 *     none is configured by default: then nothing is reserved and nothing capped
 */
public record HostResources(Cpus cpus, Long memoryBytes) {

  public HostResources {
    Objects.requireNonNull(cpus, "cpus");
    if (cpus.compareTo(Cpus.SMALLEST) < 0) {
      throw new IllegalArgumentException(
          "a job takes at least " + Cpus.SMALLEST + " core, not " + cpus);
    }
    if (memoryBytes != null && memoryBytes <= 0) {
      throw new IllegalArgumentException("host memory must be positive, not " + memoryBytes);
    }
  }

  /** {@code wholeCores} cores of its own. */
  public HostResources(int wholeCores, Long memoryBytes) {
    this(Cpus.of(wholeCores), memoryBytes);
  }

  /** One core and no host memory set aside: what a job got before it could ask. */
  public static final HostResources ONE_CORE = new HostResources(1, null);
}
