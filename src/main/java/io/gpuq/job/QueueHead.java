package io.gpuq.job;

import io.gpuq.concurrency.TrialSlots;
import java.util.List;
import java.util.Map;

/**
 * The heads of the two queues, CPU-only jobs and GPU jobs, each in scheduling order, without the
 * trials of sweeps that run as many trials as they may.
 *
 * @param limitedSweeps the sweeps with a {@code maxConcurrent} whose trials are in the heads or
 *     were left out of them for being full, with their running trials
 */
public record QueueHead(
    List<QueuedJob> cpuOnly, List<QueuedJob> gpu, Map<String, TrialSlots> limitedSweeps) {

  public QueueHead {
    cpuOnly = List.copyOf(cpuOnly);
    gpu = List.copyOf(gpu);
    limitedSweeps = Map.copyOf(limitedSweeps);
  }

  public QueueHead(List<QueuedJob> cpuOnly, List<QueuedJob> gpu) {
    this(cpuOnly, gpu, Map.of());
  }
}
