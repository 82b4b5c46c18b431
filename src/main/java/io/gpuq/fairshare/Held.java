package io.gpuq.fairshare;

import io.gpuq.placement.MemoryDemand;
import io.gpuq.placement.PlacedGpu;
import io.gpuq.placement.PlacementDecision;
import io.gpuq.placement.PlacementRequest;

/**
 * What an owner's running jobs hold, over every node.
 *
 * @param gpuMemoryBytes the budgets of their GPU jobs, on each of their GPUs, added up (a whole-GPU
 *     job's budget is the GPU's schedulable memory)
 * @param wholeGpus the GPUs held by whole-GPU jobs, which nothing else may share
 * @param cpuSlots their running CPU-only jobs, one slot each
 */
public record Held(long gpuMemoryBytes, long wholeGpus, long cpuSlots) {

  public static final Held NONE = new Held(0, 0, 0);

  public Held {
    if (gpuMemoryBytes < 0 || wholeGpus < 0 || cpuSlots < 0) {
      throw new IllegalArgumentException("held resources must not be negative");
    }
  }

  public Held plus(Held other) {
    return new Held(
        gpuMemoryBytes + other.gpuMemoryBytes,
        wholeGpus + other.wholeGpus,
        cpuSlots + other.cpuSlots);
  }

  /** What a job holds once started with this decision. */
  public static Held of(PlacementRequest request, PlacementDecision decision) {
    if (decision.isCpuOnly()) {
      return new Held(0, 0, 1);
    }
    long bytes = 0;
    for (PlacedGpu gpu : decision.gpus()) {
      bytes += gpu.memoryBytes();
    }
    boolean whole = request.memory() instanceof MemoryDemand.WholeGpu;
    return new Held(bytes, whole ? decision.gpus().size() : 0, 0);
  }
}
