package io.gpuq.placement;

import io.gpuq.text.Cpus;

/**
 * This node's cores and host memory at the start of a pass: what it gives its jobs ({@code
 * allocatable}) and what the jobs already there hold of it (live workers and launches under way).
 * Every job takes its cores, fractions counted exactly (thousandths); only jobs that ask for host
 * memory take memory.
 *
 * @param allocatableCpus cores the node gives its jobs, at least 1
 * @param allocatableMemoryBytes host memory the node gives its jobs
 * @param takenCpus cores of the jobs there now, fractions added up
 * @param takenMemoryBytes host memory reserved by the jobs there now
 */
public record HostCapacity(
    int allocatableCpus, long allocatableMemoryBytes, Cpus takenCpus, long takenMemoryBytes) {

  /** A node that places by GPUs alone: cores and host memory never run out. */
  public static final HostCapacity UNLIMITED =
      new HostCapacity(Integer.MAX_VALUE, Long.MAX_VALUE, Cpus.ZERO, 0);

  public HostCapacity {
    if (allocatableCpus < 1
        || allocatableMemoryBytes < 0
        || takenCpus == null
        || takenMemoryBytes < 0) {
      throw new IllegalArgumentException(
          "host figures out of range: "
              + allocatableCpus
              + " cores, "
              + allocatableMemoryBytes
              + " bytes allocatable; "
              + takenCpus
              + " cores, "
              + takenMemoryBytes
              + " bytes taken");
    }
  }

  /** The same node with nothing on it: what admission at submit measures a job against. */
  public static HostCapacity empty(int allocatableCpus, long allocatableMemoryBytes) {
    return new HostCapacity(allocatableCpus, allocatableMemoryBytes, Cpus.ZERO, 0);
  }

  /** Cores free now; 0 when the jobs there hold more than is allocatable (after a restart). */
  public Cpus freeCpus() {
    return Cpus.of(allocatableCpus).less(takenCpus);
  }

  /** The cores the node gives its jobs, as {@link Cpus}. */
  public Cpus allocatable() {
    return Cpus.of(allocatableCpus);
  }

  /** Host memory free now. */
  public long freeMemoryBytes() {
    return Math.max(0, allocatableMemoryBytes - takenMemoryBytes);
  }
}
