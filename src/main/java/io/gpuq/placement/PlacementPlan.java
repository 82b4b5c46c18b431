package io.gpuq.placement;

import io.gpuq.text.Cpus;
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
 * @param waits why each job the pass examined and did not start waits, by job id; jobs beyond the
 *     lookahead are not in it
 * @param mostFree the GPU with the most memory available once the pass's starts are counted; null
 *     on a node without GPUs
 * @param freeCpus the node's cores left free once the pass's starts are counted
 * @param freeMemoryBytes the node's host memory left free once the pass's starts are counted
 */
public record PlacementPlan(
    List<PlacementDecision> starts,
    Optional<Instant> retryAt,
    Waits waits,
    FreeGpu mostFree,
    Cpus freeCpus,
    long freeMemoryBytes) {

  /** A GPU's memory still available to budgets. */
  public record FreeGpu(int index, long availableBytes) {}

  public PlacementPlan {
    starts = List.copyOf(starts);
    Objects.requireNonNull(retryAt, "retryAt");
    Objects.requireNonNull(waits, "waits");
  }

  public PlacementPlan(List<PlacementDecision> starts, Optional<Instant> retryAt) {
    this(starts, retryAt, Waits.NONE, null, Cpus.ofMillis(Long.MAX_VALUE), Long.MAX_VALUE);
  }
}
