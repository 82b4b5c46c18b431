package io.gpuq.schedule;

import io.gpuq.placement.PlacementPlan.FreeGpu;
import io.gpuq.placement.Wait;
import io.gpuq.text.MemorySize;
import java.util.Map;
import java.util.TreeMap;

/**
 * Why a queued job waits, in words and numbers, in the manner of Slurm's squeue Reason column: the
 * one place a {@code queuedReason}'s wording is chosen.
 */
public final class WaitWords {

  public static final String NOT_YET_CONSIDERED = "not yet considered by a scheduling pass";

  private WaitWords() {}

  /**
   * @param mostFree the GPU of {@code node} with the most memory available after the pass; null
   *     when it has none
   */
  public static String of(Wait wait, FreeGpu mostFree, String node) {
    if (wait instanceof Wait.NoRoom room) {
      return noRoom(room, mostFree, node);
    }
    if (wait instanceof Wait.StartSpacing spacing) {
      return "start spacing on GPU " + spacing.gpu() + " of node " + node;
    }
    if (wait instanceof Wait.ReservedFor reserved) {
      return "a GPU is reserved for job " + reserved.jobId() + ", which has waited longest";
    }
    if (wait instanceof Wait.NeverHere never) {
      return "cannot run on node " + node + ": " + never.why();
    }
    return noCpuSlot(node);
  }

  public static String noCpuSlot(String node) {
    return "waiting for a free CPU slot on node " + node;
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
}
