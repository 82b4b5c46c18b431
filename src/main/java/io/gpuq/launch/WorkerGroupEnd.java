package io.gpuq.launch;

/**
 * What a worker's cgroup tells of its end, read before the group is removed.
 *
 * @param oomKills how many of its processes the kernel's OOM killer killed (the kernel's own
 *     counter): at its memory cap, or for want of memory above it; 0 without a cgroup
 * @param memoryLimitBytes its memory cap, or null for none (or no cgroup)
 * @param notEntered whether its wrapper could not enter the group, so that the job never ran
 * @param forkRefusals how many of its forks (and new threads) the kernel refused at its process
 *     limit; 0 without a pids controller
 * @param processLimit its process limit ({@code gpuq.worker.max-processes}), or null for none
 */
public record WorkerGroupEnd(
    long oomKills,
    Long memoryLimitBytes,
    boolean notEntered,
    long forkRefusals,
    Long processLimit) {

  /** A worker without a cgroup, or whose group had nothing to say. */
  public static final WorkerGroupEnd NONE = new WorkerGroupEnd(0, null, false);

  public WorkerGroupEnd(long oomKills, Long memoryLimitBytes, boolean notEntered) {
    this(oomKills, memoryLimitBytes, notEntered, 0, null);
  }

  public WorkerGroupEnd withNotEntered(boolean notEntered) {
    return new WorkerGroupEnd(oomKills, memoryLimitBytes, notEntered, forkRefusals, processLimit);
  }

  /** Whether the job met its process limit: the kernel refused it a fork at least once. */
  public boolean hitProcessLimit() {
    return forkRefusals > 0 && processLimit != null;
  }
}
