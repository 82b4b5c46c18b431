package io.gpuq.schedule;

import io.gpuq.job.QueuedJob;
import io.gpuq.text.Cpus;
import java.time.Instant;
import java.util.HashMap;
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
   * @param freeCpus the node's cores left free by the pass's starts
   * @param freeMemoryBytes the node's host memory left free by the pass's starts
   * @param ownersAtLimit the owners at their {@code max-running-jobs} in the pass, with that
   *     limit's reason: each of their queued jobs waits for it, those the pass did not read too
   */
  public record Pass(
      Instant at,
      String node,
      int freeCpuSlots,
      Map<String, String> byJob,
      Map<String, Integer> fullSweeps,
      Head cpuHead,
      Head gpuHead,
      Cpus freeCpus,
      long freeMemoryBytes,
      Map<String, String> ownersAtLimit) {
    public Pass {
      byJob = Map.copyOf(byJob);
      fullSweeps = Map.copyOf(fullSweeps);
      ownersAtLimit = Map.copyOf(ownersAtLimit);
    }

    /** The same findings, confirmed at {@code now} by a pass that read nothing new. */
    Pass seenAgain(Instant now, int freeCpuSlots, Cpus freeCpus, long freeMemoryBytes) {
      return new Pass(
          now,
          node,
          freeCpuSlots,
          byJob,
          fullSweeps,
          cpuHead,
          gpuHead,
          freeCpus,
          freeMemoryBytes,
          ownersAtLimit);
    }

    /** How far the pass read the queue of this job's kind; null when it did not read it. */
    Head headFor(int gpus) {
      return gpus > 0 ? gpuHead : cpuHead;
    }
  }

  /**
   * How far a pass read one queue (CPU-only or GPU): for each owner, the last of their jobs it
   * read, in their order (priority first, then id). Enough to tell, without reading the queue
   * again, that a job it did not see lies behind what it read. This is what keeps a {@code
   * queuedReason} O(1) however long the queue is: counting the jobs ahead of each listed one
   * numbered the whole queue (6.7 s for one job at 100,000 queued).
   *
   * @param read how many jobs the pass read
   * @param cutOff whether it stopped at its limit, so that owners' jobs were left unread
   * @param perOwner the most jobs of one owner it read
   * @param lastByOwner each owner's last job read, and how many of theirs it read
   */
  public record Head(int read, boolean cutOff, int perOwner, Map<String, Last> lastByOwner) {

    public Head {
      lastByOwner = Map.copyOf(lastByOwner);
    }

    /** An owner's last job read, and how many of theirs the pass read. */
    public record Last(int priority, String id, int count) {}

    /**
     * How far a read of at most {@code perOwner} jobs of each owner and {@code limit} in all that
     * returned {@code jobs} reached.
     */
    static Head of(List<QueuedJob> jobs, int perOwner, int limit) {
      Map<String, Last> last = new HashMap<>();
      for (QueuedJob job : jobs) {
        Last before = last.get(job.owner());
        int count = before == null ? 1 : before.count() + 1;
        last.put(job.owner(), new Last(job.priority(), job.id(), count));
      }
      return new Head(jobs.size(), jobs.size() >= limit, perOwner, last);
    }

    /**
     * Whether a read such as this one, of the queue as it was plus this job of {@code owner}, would
     * leave the job out: the read was cut off at its limit, the owner's jobs were read to the
     * deepest rank any owner was (the read takes every owner's first job, then every owner's
     * second, and so on: {@code JobTable}), and the job comes after the last of theirs.
     */
    boolean outOfReach(String owner, int priority, String id) {
      Last last = lastByOwner.get(owner);
      if (!cutOff || last == null) {
        return false;
      }
      for (Last other : lastByOwner.values()) {
        if (other.count() > last.count()) {
          return false;
        }
      }
      return priority < last.priority()
          || (priority == last.priority() && id.compareTo(last.id()) > 0);
    }

    /** Whether this job of {@code owner} comes after every job of theirs the read returned. */
    boolean behind(String owner, int priority, String id) {
      Last last = lastByOwner.get(owner);
      if (last == null) {
        return cutOff;
      }
      if (!cutOff && last.count() < perOwner) {
        return false;
      }
      return priority < last.priority()
          || (priority == last.priority() && id.compareTo(last.id()) > 0);
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
