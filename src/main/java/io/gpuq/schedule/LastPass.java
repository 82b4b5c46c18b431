package io.gpuq.schedule;

import io.gpuq.job.QueuedJob;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * What this node's last scheduling pass saw of the queued jobs it looked at, replaced each pass and
 * never written to the database: a job view's {@code queuedReason} is computed from it when read.
 */
public final class LastPass {

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
   * @param cpuHead how far the pass read the CPU-only queue; null when it did not read it
   * @param gpuHead how far the pass (or the last one that read it) read the GPU queue; null when
   *     none did
   */
  public record Pass(
      Instant at,
      String node,
      int freeCpuSlots,
      Map<String, String> byJob,
      Map<String, Integer> fullSweeps,
      Head cpuHead,
      Head gpuHead) {
    public Pass {
      byJob = Map.copyOf(byJob);
      fullSweeps = Map.copyOf(fullSweeps);
    }

    /** The same findings, confirmed at {@code now} by a pass that read nothing new. */
    Pass seenAgain(Instant now, int freeCpuSlots) {
      return new Pass(now, node, freeCpuSlots, byJob, fullSweeps, cpuHead, gpuHead);
    }

    /** How far the pass read the queue of this job's kind; null when it did not read it. */
    Head headFor(int gpus) {
      return gpus > 0 ? gpuHead : cpuHead;
    }
  }

  /**
   * How far a pass read one queue (CPU-only or GPU), in its order (priority first, then id): enough
   * to tell, without reading the queue again, that a job it did not see lies behind what it read.
   * This is what keeps a {@code queuedReason} O(1) however long the queue is: counting the jobs
   * ahead of each listed one numbered the whole queue (6.7 s for one job at 100,000 queued).
   *
   * @param read how many jobs the pass read
   * @param cutOff whether it stopped at its limit, so that more were queued behind them
   * @param lastPriority the priority of the last job read
   * @param lastId the id of the last job read
   */
  public record Head(int read, boolean cutOff, int lastPriority, String lastId) {

    /** How far a read of at most {@code limit} jobs that returned {@code jobs} reached. */
    static Head of(List<QueuedJob> jobs, int limit) {
      if (jobs.isEmpty()) {
        return new Head(0, false, 0, null);
      }
      QueuedJob last = jobs.get(jobs.size() - 1);
      return new Head(jobs.size(), jobs.size() >= limit, last.priority(), last.id());
    }

    /** Whether a job of this priority and id comes after every job the read returned. */
    boolean behind(int priority, String id) {
      if (!cutOff) {
        return false;
      }
      return priority < lastPriority || (priority == lastPriority && id.compareTo(lastId) > 0);
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
