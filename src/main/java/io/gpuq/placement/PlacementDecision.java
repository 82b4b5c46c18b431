package io.gpuq.placement;

import java.util.List;
import java.util.Objects;

/**
 * Start this job now on these GPUs.
 *
 * @param gpus its GPUs by ascending index, each with the same budget (now reserved there); empty
 *     for a CPU-only job
 */
public record PlacementDecision(String jobId, List<PlacedGpu> gpus) {

  public PlacementDecision {
    Objects.requireNonNull(jobId, "jobId");
    gpus = List.copyOf(gpus);
  }

  public static PlacementDecision cpuOnly(String jobId) {
    return new PlacementDecision(jobId, List.of());
  }

  public boolean isCpuOnly() {
    return gpus.isEmpty();
  }

  /** Device indices, ascending. */
  public List<Integer> gpuIndices() {
    return gpus.stream().map(PlacedGpu::index).toList();
  }

  /** The budget on each of its GPUs; 0 for a CPU-only job. */
  public long perGpuBudgetBytes() {
    return gpus.isEmpty() ? 0 : gpus.get(0).memoryBytes();
  }
}
