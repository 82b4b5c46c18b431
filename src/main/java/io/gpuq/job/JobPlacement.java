package io.gpuq.job;

import java.util.List;

/**
 * Where a job runs: its node, its GPUs with the budget on each, and the budget as a fraction of the
 * (first) GPU's memory. CPU-only jobs have no GPUs and a fraction of 0.
 */
public record JobPlacement(String node, List<Gpu> gpus, double memoryFraction) {

  public JobPlacement {
    gpus = List.copyOf(gpus);
  }

  public static JobPlacement cpuOnly(String node) {
    return new JobPlacement(node, List.of(), 0);
  }

  public long budgetBytesPerGpu() {
    return gpus.isEmpty() ? 0 : gpus.get(0).memoryBytes();
  }

  /** One placed GPU: its index on the node, its UUID and the job's budget on it. */
  public record Gpu(int index, String uuid, long memoryBytes) {}
}
