package io.gpuq.placement;

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
 */
public record PlacementRequest(
    String jobId, int gpus, MemoryDemand memory, int priority, long sequence, Instant queuedSince) {

  public PlacementRequest {
    Objects.requireNonNull(jobId, "jobId");
    Objects.requireNonNull(memory, "memory");
    Objects.requireNonNull(queuedSince, "queuedSince");
    if (gpus < 0) {
      throw new IllegalArgumentException("gpus must not be negative: " + gpus);
    }
  }

  public boolean isCpuOnly() {
    return gpus == 0;
  }
}
