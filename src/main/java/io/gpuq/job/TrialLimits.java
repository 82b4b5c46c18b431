package io.gpuq.job;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Which of the jobs a claim locked may start without a sweep running more trials than its {@code
 * maxConcurrent}: the same rule for every store, applied while the sweeps' counts cannot change
 * under it (the database store holds their rows' locks, the in-memory store its own lock).
 */
final class TrialLimits {

  private TrialLimits() {}

  /**
   * @param inClaimOrder the jobs that may start, in the order the scheduler placed them: the first
   *     trials of a sweep take its free slots
   * @param slots the limited sweeps among them; a sweep not in it has no limit
   */
  static List<ClaimedJob> within(List<ClaimedJob> inClaimOrder, Map<String, TrialSlots> slots) {
    if (slots.isEmpty()) {
      return inClaimOrder;
    }
    Map<String, Integer> taken = new HashMap<>();
    List<ClaimedJob> allowed = new ArrayList<>(inClaimOrder.size());
    for (ClaimedJob job : inClaimOrder) {
      TrialSlots sweep = job.trial() == null ? null : slots.get(job.trial().sweepId());
      if (sweep != null) {
        int startedNow = taken.merge(job.trial().sweepId(), 1, Integer::sum);
        if (startedNow > sweep.free()) {
          continue;
        }
      }
      allowed.add(job);
    }
    return allowed;
  }
}
