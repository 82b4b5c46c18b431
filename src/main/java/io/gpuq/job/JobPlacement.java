package io.gpuq.job;

import io.gpuq.placement.PlacedGpu;
import java.math.BigDecimal;
import java.util.List;

/**
 * Where a job runs: its node, its GPUs with the budget on each, and that budget as the fraction of
 * GPU memory its worker was given (the smallest of its GPUs' fractions, as {@code
 * XLA_PYTHON_CLIENT_MEM_FRACTION}). CPU-only jobs have no GPUs and a fraction of 0. Stored with the
 * job and shown by the API as it is.
 */
public record JobPlacement(String node, List<PlacedGpu> gpus, double memoryFraction) {

  public JobPlacement {
    gpus = List.copyOf(gpus);
  }

  /** A placement on these GPUs, with the fraction the worker's environment gets. */
  public static JobPlacement of(String node, List<PlacedGpu> gpus) {
    double fraction = PlacedGpu.commonFraction(gpus).map(BigDecimal::doubleValue).orElse(0.0);
    return new JobPlacement(node, gpus, fraction);
  }

  public static JobPlacement cpuOnly(String node) {
    return new JobPlacement(node, List.of(), 0);
  }

  public long budgetBytesPerGpu() {
    return gpus.isEmpty() ? 0 : gpus.get(0).memoryBytes();
  }
}
