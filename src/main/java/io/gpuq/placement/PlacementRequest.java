package io.gpuq.placement;

import io.gpuq.text.Cpus;
import java.time.Instant;
import java.util.Objects;

/**
 * A queued job as placement sees it.
 *
 * @param gpus number of GPUs, all on this node; 0 for a CPU-only job, which needs a free CPU slot
 *     and no GPU
 * @param memory demand per GPU; ignored when {@code gpus == 0}
 * @param priority higher starts first
 * @param sequence submission order, breaks ties between equal priorities (lower first)
 * @param queuedSince when the job (this attempt) entered the queue; its wait bounds backfilling
 * @param cpus cores it takes of the node, whole or a fraction, whatever its GPUs
 * @param hostMemoryBytes host memory it reserves on the node; 0 when it asks for none (then it
 *     reserves nothing)
 */
public record PlacementRequest(
    String jobId,
    int gpus,
    MemoryDemand memory,
    int priority,
    long sequence,
    Instant queuedSince,
    Cpus cpus,
    long hostMemoryBytes) {

  public PlacementRequest {
    Objects.requireNonNull(jobId, "jobId");
    Objects.requireNonNull(memory, "memory");
    Objects.requireNonNull(queuedSince, "queuedSince");
    if (gpus < 0) {
      throw new IllegalArgumentException("gpus must not be negative: " + gpus);
    }
    Objects.requireNonNull(cpus, "cpus");
    if (cpus.compareTo(Cpus.SMALLEST) < 0) {
      throw new IllegalArgumentException(
          "a job takes at least " + Cpus.SMALLEST + " core, not " + cpus);
    }
    if (hostMemoryBytes < 0) {
      throw new IllegalArgumentException("host memory must not be negative: " + hostMemoryBytes);
    }
  }

  /** A request of one core and no host memory: what every job took before it could ask. */
  public PlacementRequest(
      String jobId,
      int gpus,
      MemoryDemand memory,
      int priority,
      long sequence,
      Instant queuedSince) {
    this(jobId, gpus, memory, priority, sequence, queuedSince, Cpus.ONE, 0);
  }

  public boolean isCpuOnly() {
    return gpus == 0;
  }
}
