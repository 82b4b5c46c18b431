package io.gpuq.launch;

/**
 * What a worker's cgroup tells of its end, read before the group is removed.
 *
 * @param oomKills how many of its processes the kernel killed at its memory cap (the kernel's own
 *     counter); 0 without a cgroup
 * @param memoryLimitBytes its memory cap, or null for none (or no cgroup)
 * @param notEntered whether its wrapper could not enter the group, so that the job never ran
 */
public record WorkerGroupEnd(long oomKills, Long memoryLimitBytes, boolean notEntered) {

  /** A worker without a cgroup, or whose group had nothing to say. */
  public static final WorkerGroupEnd NONE = new WorkerGroupEnd(0, null, false);

  public WorkerGroupEnd withNotEntered(boolean notEntered) {
    return new WorkerGroupEnd(oomKills, memoryLimitBytes, notEntered);
  }
}
