package io.gpuq.schedule;

import io.gpuq.fairshare.Capacity;
import io.gpuq.job.Job;
import io.gpuq.job.JobState;
import io.gpuq.job.SweepTrial;
import io.gpuq.placement.PlacementPlan.FreeGpu;
import io.gpuq.placement.Wait;
import io.gpuq.text.Cpus;
import io.gpuq.text.MemorySize;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * A queued job's {@code queuedReason}: why it waits, in words and numbers, in the manner of Slurm's
 * squeue Reason column. The static methods are the one place its wording is chosen; an instance
 * computes a job's reason when it is read, from what this node's last scheduling pass saw ({@link
 * LastPass}) and from nothing else: no read of the database, so that a job's page and a listing
 * cost the same however long the queue is.
 */
public final class QueuedReasons {

  public static final String NOT_YET_CONSIDERED = "not yet considered by a scheduling pass";

  private static final String RESERVED_FOR = "a GPU is reserved for ";
  private static final String HOST_RESERVED_FOR = "cores and host memory are reserved for ";
  private static final String WAITED_LONGEST = ", which has waited longest";
  private static final String JOB = "job ";

  /** A reservation's words for a caller who may not see whose job holds it. */
  public static final String RESERVED_FOR_ANOTHER_OWNER =
      RESERVED_FOR + "another owner's job" + WAITED_LONGEST;

  /** The same for a reservation of cores and host memory. */
  public static final String HOST_RESERVED_FOR_ANOTHER_OWNER =
      HOST_RESERVED_FOR + "another owner's job" + WAITED_LONGEST;

  /**
   * @param mostFree the GPU of {@code node} with the most memory available after the pass; null
   *     when it has none
   */
  public static String forWait(Wait wait, FreeGpu mostFree, String node) {
    if (wait instanceof Wait.NoRoom room) {
      return noRoom(room, mostFree, node);
    }
    if (wait instanceof Wait.NoCores cores) {
      return noCores(cores.cpus(), cores.free(), node);
    }
    if (wait instanceof Wait.NoHostMemory memory) {
      return noHostMemory(memory.bytes(), memory.free(), node);
    }
    if (wait instanceof Wait.StartSpacing spacing) {
      return "start spacing on GPU " + spacing.gpu() + " of node " + node;
    }
    if (wait instanceof Wait.ReservedFor reserved) {
      return (reserved.host() ? HOST_RESERVED_FOR : RESERVED_FOR)
          + JOB
          + reserved.jobId()
          + WAITED_LONGEST;
    }
    if (wait instanceof Wait.NeverHere never) {
      return "cannot run on node " + node + ": " + never.why();
    }
    return noCpuSlot(node);
  }

  /**
   * The id of the job a reason names, if it names one (only a reservation does), so that the API
   * can tell a submitter's own job from another owner's.
   */
  public static Optional<String> jobNamedIn(String reason) {
    return reservationPrefix(reason)
        .map(
            prefix ->
                reason.substring(
                    prefix.length() + JOB.length(), reason.length() - WAITED_LONGEST.length()));
  }

  /** Which reservation's words a reason is in, if it is one that names a job. */
  private static Optional<String> reservationPrefix(String reason) {
    if (reason == null || !reason.endsWith(WAITED_LONGEST)) {
      return Optional.empty();
    }
    for (String prefix : List.of(RESERVED_FOR, HOST_RESERVED_FOR)) {
      if (reason.startsWith(prefix + JOB)
          && reason.length() > prefix.length() + JOB.length() + WAITED_LONGEST.length()) {
        return Optional.of(prefix);
      }
    }
    return Optional.empty();
  }

  /** The same reason without the job it names: for a caller to whom that job is another's. */
  public static String withoutJobId(String reason) {
    return reservationPrefix(reason)
        .map(
            prefix ->
                prefix.equals(RESERVED_FOR)
                    ? RESERVED_FOR_ANOTHER_OWNER
                    : HOST_RESERVED_FOR_ANOTHER_OWNER)
        .orElse(reason);
  }

  public static String noCpuSlot(String node) {
    return "waiting for a free CPU slot on node " + node;
  }

  /** {@code waiting for 4 cores; 2 free on node a}; {@code waiting for 0.5 core; 0.25 free ...}. */
  public static String noCores(Cpus cpus, Cpus free, String node) {
    return "waiting for " + cpus.text() + "; " + free + " free on node " + node;
  }

  /** {@code waiting for 16GiB of host memory; 9.5GiB free on node a}. */
  public static String noHostMemory(long bytes, long free, String node) {
    return "waiting for "
        + MemorySize.format(bytes)
        + " of host memory; "
        + MemorySize.format(free)
        + " free on node "
        + node;
  }

  private static String noRoom(Wait.NoRoom room, FreeGpu mostFree, String node) {
    String wanted =
        room.bytesPerGpu() < 0
            ? room.gpus() == 1 ? "a whole free GPU" : room.gpus() + " whole free GPUs"
            : MemorySize.format(room.bytesPerGpu())
                + (room.gpus() == 1 ? " on one GPU" : " on each of " + room.gpus() + " GPUs");
    if (mostFree == null) {
      return "waiting for " + wanted;
    }
    return "waiting for "
        + wanted
        + "; most free is "
        + MemorySize.format(mostFree.availableBytes())
        + " on GPU "
        + mostFree.index()
        + " of node "
        + node;
  }

  private static final String TURN_FIRST = "'s turn first: ";
  private static final String ANOTHER_OWNER = "another owner";

  /**
   * A job that waited while another owner's job took the place: {@code bob's turn first: alice
   * holds 75% of the GPU memory at share 1 of 2}, with the waiting job's owner's figures after the
   * pass (what they hold, their recent usage if any, their share of the shares of every owner with
   * queued jobs).
   */
  public static String turnFirst(
      String first,
      String owner,
      Capacity.Dominant held,
      double recent,
      double share,
      double totalShares) {
    String recently = recent >= 0.005 ? " and used " + percent(recent) + " recently" : "";
    return first
        + TURN_FIRST
        + owner
        + " holds "
        + percent(held.share())
        + " of "
        + held.resource().words()
        + recently
        + " at share "
        + number(share)
        + " of "
        + number(totalShares);
  }

  /**
   * The same reason for a submitter, who may see their own name and figures but not another owner's
   * name: that owner becomes "another owner".
   */
  public static String withoutOtherOwner(String reason, String caller) {
    if (reason == null) {
      return null;
    }
    int turn = reason.indexOf(TURN_FIRST);
    if (turn <= 0 || reason.substring(0, turn).equals(caller)) {
      return reason;
    }
    return ANOTHER_OWNER + reason.substring(turn);
  }

  private static String percent(double share) {
    return Math.round(share * 100) + "%";
  }

  private static String number(double value) {
    return value == Math.rint(value) && Math.abs(value) < 1e15
        ? Long.toString((long) value)
        : Double.toString(value);
  }

  public static String sweepFull(int maxConcurrent) {
    return "sweep at maxConcurrent " + maxConcurrent;
  }

  /**
   * A job behind the {@code read} jobs at the head of its queue that the last pass read (its
   * lookahead, or as many CPU-only jobs as it had free slots for): not counted further, so that a
   * reason costs the same however long the queue is.
   */
  public static String behindHead(int read) {
    return "behind the first "
        + read
        + " queued "
        + (read == 1 ? "job" : "jobs")
        + ", which the last scheduling pass considered";
  }

  public static String notSelected(Map<String, String> nodeSelector, String node) {
    return "node " + node + " does not match nodeSelector " + new TreeMap<>(nodeSelector);
  }

  private final LastPass lastPass;

  public QueuedReasons(LastPass lastPass) {
    this.lastPass = lastPass;
  }

  /** Why this job waits; null unless it is queued. */
  public String of(Job job) {
    return reason(lastPass.lastPass().orElse(null), job);
  }

  /** Why each of these jobs waits, by id (null for one not queued). */
  public Map<String, String> of(List<Job> listed) {
    LastPass.Pass pass = lastPass.lastPass().orElse(null);
    Map<String, String> reasons = new HashMap<>();
    for (Job job : listed) {
      reasons.put(job.id(), reason(pass, job));
    }
    return reasons;
  }

  private static String reason(LastPass.Pass pass, Job job) {
    if (job.state() != JobState.QUEUED) {
      return null;
    }
    if (pass == null || pass.at().isBefore(job.queuedAt())) {
      return NOT_YET_CONSIDERED;
    }
    String seen = pass.byJob().get(job.id());
    if (seen != null) {
      return seen;
    }
    Integer sweepLimit =
        job.sweepTrial().map(SweepTrial::sweepId).map(pass.fullSweeps()::get).orElse(null);
    if (sweepLimit != null) {
      return sweepFull(sweepLimit);
    }
    // Ahead of what the pass read: its owner's running-jobs limit holds it back wherever it is in
    // the queue, and says more than "behind the first N" (issue 34).
    String atLimit = pass.ownersAtLimit().get(job.owner());
    if (atLimit != null) {
      return atLimit;
    }
    if (job.gpus() == 0 && pass.freeCpuSlots() == 0) {
      return noCpuSlot(pass.node());
    }
    // A CPU-only job the pass did not read, because no core was free, or behind those it read.
    if (job.gpus() == 0 && job.host().cpus().compareTo(pass.freeCpus()) > 0) {
      return noCores(job.host().cpus(), pass.freeCpus(), pass.node());
    }
    Long memory = job.host().memoryBytes();
    if (job.gpus() == 0 && memory != null && memory > pass.freeMemoryBytes()) {
      return noHostMemory(memory, pass.freeMemoryBytes(), pass.node());
    }
    LastPass.Head head = pass.headFor(job.gpus());
    if (head != null && head.behind(job.owner(), job.priority(), job.id())) {
      return behindHead(head.read());
    }
    // Not in what the pass read, nor behind it: queued again (a retry) or moved up since.
    return NOT_YET_CONSIDERED;
  }

  /**
   * A job held for the place a preemption frees (issue 35): "preempting 1 job of another owner
   * (grace 60 s)". The victims' owner is not named: the waiting owner sees this.
   */
  static String preempting(int victims, java.time.Duration grace) {
    return "preempting "
        + victims
        + (victims == 1 ? " job" : " jobs")
        + " of another owner (grace "
        + grace.toSeconds()
        + " s)";
  }
}
