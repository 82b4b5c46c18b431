package io.gpuq.job;

import java.util.List;

/** The heads of the two queues, CPU-only jobs and GPU jobs, each in scheduling order. */
public record QueueHead(List<QueuedJob> cpuOnly, List<QueuedJob> gpu) {

  public QueueHead {
    cpuOnly = List.copyOf(cpuOnly);
    gpu = List.copyOf(gpu);
  }
}
