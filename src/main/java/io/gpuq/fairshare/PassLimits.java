package io.gpuq.fairshare;

import java.util.Map;
import java.util.Objects;

/**
 * What one pass needs, besides standings, to keep each owner within their running limits.
 *
 * @param byOwner each owner's limits; an owner not in it has {@link Limits#DEFAULT} (no running
 *     limit)
 * @param largestGpuBytes the memory of this node's largest GPU: before a job is placed, the most it
 *     can hold on one of its GPUs ({@link Held#atMost})
 */
public record PassLimits(Map<String, Limits> byOwner, long largestGpuBytes) {

  /** No limits. */
  public static final PassLimits NONE = new PassLimits(Map.of(), 0);

  public PassLimits {
    byOwner = Map.copyOf(Objects.requireNonNull(byOwner));
  }

  Limits of(String owner) {
    return byOwner.getOrDefault(owner, Limits.DEFAULT);
  }
}
