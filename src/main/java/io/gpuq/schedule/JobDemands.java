package io.gpuq.schedule;

import io.gpuq.job.HostResources;
import io.gpuq.job.JobSpec;
import io.gpuq.job.QueuedJob;
import io.gpuq.placement.PlacementRequest;
import java.time.Instant;

/** Translates what a job asks for into the placer's terms. */
final class JobDemands {

  private JobDemands() {}

  static PlacementRequest requestOf(QueuedJob job, long sequence) {
    return new PlacementRequest(
        job.id(),
        job.gpus(),
        job.memory(),
        job.priority(),
        sequence,
        job.queuedAt(),
        job.host().cpus(),
        hostMemoryOf(job.host()));
  }

  static PlacementRequest requestOf(JobSpec spec, Instant now) {
    HostResources host = spec.host() == null ? HostResources.ONE_CORE : spec.host();
    return new PlacementRequest(
        "new",
        spec.gpus(),
        spec.memory(),
        spec.priority(),
        0,
        now,
        host.cpus(),
        hostMemoryOf(host));
  }

  /** A job that asks for no host memory reserves none. */
  static long hostMemoryOf(HostResources host) {
    return host.memoryBytes() == null ? 0 : host.memoryBytes();
  }
}
