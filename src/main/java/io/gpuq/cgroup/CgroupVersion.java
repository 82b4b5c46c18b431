package io.gpuq.cgroup;

/** Which cgroup interface gpuq's worker controllers (cpuset, memory) are found in. */
public enum CgroupVersion {
  /** One hierarchy per controller ({@code /sys/fs/cgroup/memory}, ...); hybrid hosts too. */
  V1,
  /** The unified hierarchy, {@code cgroup2}. */
  V2,
  /** Neither: no cgroup file system with those controllers is mounted. */
  NONE
}
