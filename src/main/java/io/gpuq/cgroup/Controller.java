package io.gpuq.cgroup;

import java.util.Locale;

/** The cgroup controllers gpuq reads or writes, by their kernel names. */
public enum Controller {
  /** Binds a worker to its cores; written. */
  CPUSET,
  /** Caps a worker's memory and counts its OOM kills; written. */
  MEMORY,
  /** v1's CPU accounting (v2 accounts CPU in every group, in cpu.stat); read only. */
  CPUACCT,
  /**
   * CPU bandwidth (cfs_quota, cpu.max): read for the quota gpuq itself may run under; written to
   * hold a worker that asks for a fraction of a core to it.
   */
  CPU,
  /**
   * Caps how many tasks (processes and threads) a worker may have, and counts the forks refused at
   * that cap; written where mounted (v1) or available (v2), as gpuq runs without it elsewhere.
   */
  PIDS,
  /**
   * v1's freezer: stops every process of a worker at once, so that one round of SIGKILL reaches
   * them all, however fast they fork (v2 has cgroup.kill and cgroup.freeze in every group);
   * written, where it is mounted.
   */
  FREEZER;

  /** The kernel's name: the constant's, in lower case. */
  public String kernelName() {
    return name().toLowerCase(Locale.ROOT);
  }
}
