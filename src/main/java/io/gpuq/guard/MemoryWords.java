package io.gpuq.guard;

import io.gpuq.job.JobPlacement;
import io.gpuq.text.MemorySize;
import java.util.stream.Collectors;

/** GPU memory failures in words, with their numbers, for failure messages and job logs. */
public final class MemoryWords {

  private MemoryWords() {}

  /** {@code it used 1.3GiB on GPU 0, over its budget of 1GiB (+64MiB tolerance)}. */
  public static String overBudget(int gpuIndex, long usedBytes, long budgetBytes, long tolerance) {
    return "it used "
        + MemorySize.format(usedBytes)
        + " on GPU "
        + gpuIndex
        + ", over its budget of "
        + MemorySize.format(budgetBytes)
        + " (+"
        + MemorySize.format(tolerance)
        + " tolerance)";
  }

  /**
   * {@code its budget was 1GiB on GPU 0 (peak measured: 980MiB)}, or on several GPUs {@code its
   * budget was 1GiB on each of GPUs 0, 1}; empty for a job on no GPU.
   *
   * @param peakBytes the most it was measured to use on one GPU, or null if never measured
   */
  public static String budget(JobPlacement placement, Long peakBytes) {
    if (placement == null || placement.gpus().isEmpty()) {
      return "";
    }
    String where =
        placement.gpus().size() == 1
            ? "on GPU " + placement.gpus().get(0).index()
            : "on each of GPUs "
                + placement.gpus().stream()
                    .map(gpu -> String.valueOf(gpu.index()))
                    .collect(Collectors.joining(", "));
    String peak = peakBytes == null ? "" : " (peak measured: " + MemorySize.format(peakBytes) + ")";
    return "its budget was "
        + MemorySize.format(placement.budgetBytesPerGpu())
        + " "
        + where
        + peak;
  }
}
