package io.gpuq.schedule;

import io.gpuq.job.QueuedJob;
import io.gpuq.job.TrialSlots;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * A pass places no more trials of a sweep than its {@code maxConcurrent} leaves room for, counting
 * the ones the pass itself starts: the rest stay out of the placer's view, so that what they would
 * have taken goes to the jobs behind them. (The claim enforces the limit again, against every
 * node's starts.)
 */
final class TrialTurns {

  private TrialTurns() {}

  /**
   * @param queue in scheduling order
   * @param waiting gets the reason of each trial left out
   * @param atLimit gets the sweeps whose trials were left out, with their limit
   * @return the jobs of {@code queue} that may be placed, in its order
   */
  static List<QueuedJob> within(
      List<QueuedJob> queue,
      Map<String, TrialSlots> limited,
      Map<String, String> waiting,
      Map<String, Integer> atLimit) {
    if (limited.isEmpty()) {
      return queue;
    }
    Map<String, Integer> placed = new HashMap<>();
    List<QueuedJob> allowed = new ArrayList<>(queue.size());
    for (QueuedJob job : queue) {
      TrialSlots slots = job.sweepId() == null ? null : limited.get(job.sweepId());
      if (slots != null && placed.merge(job.sweepId(), 1, Integer::sum) > slots.free()) {
        waiting.put(job.id(), WaitWords.sweepFull(slots.maxConcurrent()));
        atLimit.put(job.sweepId(), slots.maxConcurrent());
        continue;
      }
      allowed.add(job);
    }
    return allowed;
  }
}
