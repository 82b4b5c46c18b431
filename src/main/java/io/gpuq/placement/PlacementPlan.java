package io.gpuq.placement;

import java.time.Instant;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * The outcome of one placement pass.
 *
 * @param starts jobs to start now, in queue order
 * @param retryAt present when start spacing held back a job that would otherwise have started: the
 *     earliest instant at which one of the GPUs that held it back becomes eligible again, so the
 *     loop can wake then instead of polling
 */
public record PlacementPlan(List<PlacementDecision> starts, Optional<Instant> retryAt) {

  public PlacementPlan {
    starts = List.copyOf(starts);
    Objects.requireNonNull(retryAt, "retryAt");
  }
}
