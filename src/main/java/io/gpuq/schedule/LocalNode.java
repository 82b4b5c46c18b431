package io.gpuq.schedule;

import io.gpuq.cgroup.NodeCapacity;
import java.util.Map;
import java.util.function.Predicate;

/**
 * This node, as a scheduling pass places jobs on it.
 *
 * @param name its name, which jobs it runs record
 * @param cpuSlots how many jobs without GPUs it runs at once, whatever their cores (a cap)
 * @param selects whether it runs jobs with a given node selector
 * @param allocatable the cores and host memory it gives its jobs
 */
public record LocalNode(
    String name, int cpuSlots, Predicate<Map<String, String>> selects, NodeCapacity allocatable) {

  /** A node whose cores and host memory never run out: placed by GPUs and CPU slots alone. */
  public static final NodeCapacity UNLIMITED = new NodeCapacity(Integer.MAX_VALUE, Long.MAX_VALUE);

  public LocalNode(String name, int cpuSlots, Predicate<Map<String, String>> selects) {
    this(name, cpuSlots, selects, UNLIMITED);
  }
}
