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
   * @param fullSweeps the sweeps at their {@code maxConcurrent}, with that limit: their trials were
   *     not looked at
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
  }

  private volatile Pass last;

  void record(Pass pass) {
    last = pass;
  }

  /** The last pass, if one has run. */
  public Optional<Pass> lastPass() {
    return Optional.ofNullable(last);
  }
}
