package io.gpuq.schedule;

import io.gpuq.fairshare.Held;
import io.gpuq.launch.Workers;
import java.util.HashMap;
import java.util.Map;

/**
 * What owners hold on this node beside their workers (a warm-start zygote's memory and CPU, issue
 * 36), counted as their running jobs' holdings are: in fair share, in the limits checked again at a
 * claim, and in {@code GET /api/v1/owners}. This node's only: each node counts the zygotes it runs.
 */
public final class HeldBesideWorkers {

  /** Each owner's holdings beside their workers on this node, as cores and host memory. */
  public static Map<String, Held> of(Workers workers) {
    Map<String, Workers.HostHeld> beside = workers.heldBesideWorkers();
    if (beside.isEmpty()) {
      return Map.of();
    }
    Map<String, Held> held = new HashMap<>();
    beside.forEach(
        (owner, host) ->
            held.put(owner, new Held(0, 0, 0, host.cpus(), host.memoryBytes(), 0, 0, 0)));
    return held;
  }

  /** What the owners' running jobs hold, plus what they hold beside their workers. */
  public static Map<String, Held> plus(Map<String, Held> held, Map<String, Held> beside) {
    if (beside.isEmpty()) {
      return held;
    }
    Map<String, Held> all = new HashMap<>(held);
    beside.forEach((owner, more) -> all.merge(owner, more, Held::plus));
    return all;
  }

  private HeldBesideWorkers() {}
}
