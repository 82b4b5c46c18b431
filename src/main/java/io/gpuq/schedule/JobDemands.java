package io.gpuq.schedule;

import io.gpuq.job.JobSpec;
import io.gpuq.job.QueuedJob;
import io.gpuq.placement.MemoryDemand;
import io.gpuq.placement.PlacementRequest;
import java.time.Instant;

/** Translates what a job asks for into the placer's terms. */
final class JobDemands {

  private JobDemands() {}

  static PlacementRequest requestOf(QueuedJob job, long sequence) {
    return new PlacementRequest(
        job.id(),
        job.gpus(),
        demand(job.gpus(), job.gpuMemoryBytes(), job.gpuFraction()),
        job.priority(),
        sequence,
        job.queuedAt());
  }

  static PlacementRequest requestOf(JobSpec spec, Instant now) {
    return new PlacementRequest(
        "new",
        spec.gpus(),
        demand(spec.gpus(), spec.gpuMemoryBytes(), spec.gpuFraction()),
        spec.priority(),
        0,
        now);
  }

  private static MemoryDemand demand(int gpus, Long bytes, Double fraction) {
    if (gpus == 0) {
      return MemoryDemand.wholeGpu();
    }
    if (bytes != null) {
      return MemoryDemand.bytes(bytes);
    }
    if (fraction != null) {
      return MemoryDemand.fraction(fraction);
    }
    return MemoryDemand.wholeGpu();
  }
}
