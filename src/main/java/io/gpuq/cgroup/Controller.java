package io.gpuq.cgroup;

/** The cgroup controllers gpuq reads or writes, by their kernel names. */
public enum Controller {
  /** Binds a worker to its cores; written. */
  CPUSET("cpuset"),
  /** Caps a worker's memory and counts its OOM kills; written. */
  MEMORY("memory"),
  /** v1's CPU accounting (v2 accounts CPU in every group, in cpu.stat); read only. */
  CPUACCT("cpuacct"),
  /** The CPU quota gpuq itself may run under (cfs_quota, cpu.max); read only. */
  CPU("cpu");

  private final String kernelName;

  Controller(String kernelName) {
    this.kernelName = kernelName;
  }

  public String kernelName() {
    return kernelName;
  }
}
