package io.gpuq.concurrency;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.BiConsumer;
import java.util.function.Function;

/**
 * Which jobs, taken in order, may start without a sweep running more trials than its {@code
 * maxConcurrent}: the first of a sweep's trials take its free slots, the others wait. One rule for
 * the scheduling pass (which leaves the others out of the placer's view) and for every store's
 * claim (which applies it while the sweeps' counts cannot change under it: the database store holds
 * their rows' locks, the in-memory store its own lock).
 */
public final class TrialLimits {

  private TrialLimits() {}

  /**
   * @param inOrder the jobs, in the order their turns come
   * @param sweepOf a job's sweep; null for a job of its own
   * @param slots the limited sweeps among them; a sweep not in it has no limit
   * @param leftOut told of each job left out, with its sweep's slots
   * @return the jobs of {@code inOrder} that may start, in its order
   */
  public static <T> List<T> within(
      List<T> inOrder,
      Function<T, String> sweepOf,
      Map<String, TrialSlots> slots,
      BiConsumer<T, TrialSlots> leftOut) {
    if (slots.isEmpty()) {
      return inOrder;
    }
    Map<String, Integer> taken = new HashMap<>();
    List<T> allowed = new ArrayList<>(inOrder.size());
    for (T job : inOrder) {
      String sweepId = sweepOf.apply(job);
      TrialSlots sweep = sweepId == null ? null : slots.get(sweepId);
      if (sweep != null && taken.merge(sweepId, 1, Integer::sum) > sweep.free()) {
        leftOut.accept(job, sweep);
        continue;
      }
      allowed.add(job);
    }
    return allowed;
  }
}
