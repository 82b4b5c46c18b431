package io.gpuq.schedule;

import io.gpuq.concurrency.TrialLimits;
import io.gpuq.concurrency.TrialSlots;
import io.gpuq.job.QueuedJob;
import java.util.List;
import java.util.Map;

/**
 * A pass places no more trials of a sweep than its {@code maxConcurrent} leaves room for, counting
 * the ones the pass itself starts: the rest stay out of the placer's view, so that what they would
 * have taken goes to the jobs behind them. (The claim enforces the limit again, against every
 * node's starts, by the same {@link TrialLimits}.)
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
    return TrialLimits.within(
        queue,
        QueuedJob::sweepId,
        limited,
        (job, slots) -> {
          waiting.put(job.id(), QueuedReasons.sweepFull(slots.maxConcurrent()));
          atLimit.put(job.sweepId(), slots.maxConcurrent());
        });
  }
}
