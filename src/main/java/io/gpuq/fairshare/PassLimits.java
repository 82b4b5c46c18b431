package io.gpuq.fairshare;

import java.util.Map;
import java.util.Objects;

/**
 * What one pass needs, besides standings, to keep each owner within their running limits and to
 * count what a start holds.
 *
 * @param byOwner each owner's limits; an owner not in it has {@link Limits#DEFAULT} (no running
 *     limit)
 * @param hostByJob each queued job's cores and host memory; a job not in it has {@link
 *     HostDemand#DEFAULT}
 * @param largestGpuBytes the memory of this node's largest GPU: before a job is placed, the most it
 *     can hold on one of its GPUs ({@link Held#atMost})
 */
public record PassLimits(
    Map<String, Limits> byOwner, Map<String, HostDemand> hostByJob, long largestGpuBytes) {

  /** No limits; every job 1 core, no host memory. */
  public static final PassLimits NONE = new PassLimits(Map.of(), Map.of(), 0);

  public PassLimits {
    byOwner = Map.copyOf(byOwner);
    hostByJob = Map.copyOf(hostByJob);
    Objects.requireNonNull(byOwner);
  }

  Limits of(String owner) {
    return byOwner.getOrDefault(owner, Limits.DEFAULT);
  }

  HostDemand hostOf(String jobId) {
    return hostByJob.getOrDefault(jobId, HostDemand.DEFAULT);
  }
}
