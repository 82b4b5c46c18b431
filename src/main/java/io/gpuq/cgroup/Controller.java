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
  CPU;

  /** The kernel's name: the constant's, in lower case. */
  public String kernelName() {
    return name().toLowerCase(Locale.ROOT);
  }
}
