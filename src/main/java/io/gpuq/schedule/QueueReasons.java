package io.gpuq.schedule;

import java.time.Instant;
import java.util.Map;
import java.util.Optional;

/**
 * What this node's last scheduling pass saw of the queued jobs it looked at, replaced each pass and
 * never written to the database: a job view's {@code queuedReason} is computed from it when read.
 */
public final class QueueReasons {

  /**
   * One pass's findings.
   *
   * @param at when the pass ran: a job queued after it was not seen
   * @param node this node's name
   * @param freeCpuSlots the CPU slots left free by the pass's starts: with none, the CPU-only jobs
   *     it did not read wait for one
   * @param byJob why each job the pass looked at did not start
   * @param fullSweeps the sweeps at their {@code maxConcurrent} once the pass's starts are counted,
   *     with that limit: their other trials wait for one of theirs to end
   */
  public record Pass(
      Instant at,
      String node,
      int freeCpuSlots,
      Map<String, String> byJob,
      Map<String, Integer> fullSweeps) {
    public Pass {
      byJob = Map.copyOf(byJob);
      fullSweeps = Map.copyOf(fullSweeps);
    }

    /** The same findings, confirmed at {@code now} by a pass that read nothing new. */
    Pass seenAgain(Instant now, int freeCpuSlots) {
      return new Pass(now, node, freeCpuSlots, byJob, fullSweeps);
    }
  }

  private volatile Pass last;

  void record(Pass pass) {
    last = pass;
  }

  /**
   * Whether the last pass held trials back for their sweep's limit: then the end of any attempt,
   * once stored, may let one start. (Capacity is freed before an end is stored, and the limit is
   * counted in the store: the pass that the freed capacity wakes may still count the ended trial as
   * running.)
   */
  public boolean heldBackTrials() {
    Pass pass = last;
    return pass != null && !pass.fullSweeps().isEmpty();
  }

  /** The last pass, if one has run. */
  public Optional<Pass> lastPass() {
    return Optional.ofNullable(last);
  }
}
