package io.gpuq.placement;

import java.time.Instant;
import java.util.Objects;

/**
 * One GPU of the node at the start of a pass.
 *
 * @param index device index, as reported in decisions
 * @param reservedBytes sum of the budgets of gpuq jobs placed on it
 * @param measuredUsedBytes memory the GPU backend measured in use now, by all processes
 * @param foreignUsedBytes measured use by processes gpuq did not start
 * @param lastStartAt when gpuq last started a job on it; null if never (or long ago)
 */
public record GpuCapacity(
    int index,
    String uuid,
    long totalBytes,
    long reservedBytes,
    long measuredUsedBytes,
    long foreignUsedBytes,
    Instant lastStartAt) {

  public GpuCapacity {
    Objects.requireNonNull(uuid, "uuid");
    if (totalBytes < 0 || reservedBytes < 0 || measuredUsedBytes < 0 || foreignUsedBytes < 0) {
      throw new IllegalArgumentException("memory figures must not be negative: GPU " + index);
    }
  }
}
