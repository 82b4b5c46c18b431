package io.gpuq.job;

import java.util.Objects;

/**
 * The cores a worker was given, and how it is held to them.
 *
 * @param cpus a CPU list in the kernel's syntax ({@code "2-3,6"})
 * @param boundBy {@code cgroup} (its group's cpuset: the job cannot leave it) or {@code affinity}
 *     (bound at birth with {@code sched_setaffinity}, where gpuq cannot make cgroups)
 */
public record BoundCores(String cpus, String boundBy) {

  public static final String CGROUP = "cgroup";
  public static final String AFFINITY = "affinity";

  public BoundCores {
    Objects.requireNonNull(cpus, "cpus");
    if (!CGROUP.equals(boundBy) && !AFFINITY.equals(boundBy)) {
      throw new IllegalArgumentException("bound by cgroup or affinity, not " + boundBy);
    }
  }
}
