package io.gpuq.placement;

import java.util.List;
import java.util.Objects;

/**
 * Start this job now on these GPUs.
 *
 * @param gpuIndices device indices, ascending; empty for a CPU-only job
 * @param perGpuBudgetBytes budget on each of its GPUs (now reserved there); 0 for a CPU-only job
 */
public record PlacementDecision(String jobId, List<Integer> gpuIndices, long perGpuBudgetBytes) {

  public PlacementDecision {
    Objects.requireNonNull(jobId, "jobId");
    gpuIndices = List.copyOf(gpuIndices);
  }

  public boolean isCpuOnly() {
    return gpuIndices.isEmpty();
  }
}
