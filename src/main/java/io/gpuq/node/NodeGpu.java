package io.gpuq.node;

import java.util.List;

/**
 * One GPU of a node as that node last saw it: its device, its measured use and the budgets of the
 * jobs placed on it. Each node writes its own into the database with every heartbeat, as JSON with
 * these component names, so the names are a format the nodes of a cluster share.
 *
 * @param memoryReservedBytes the sum of the budgets of the jobs placed on it
 * @param processes the processes using it; {@code jobId} is null for a process gpuq did not start
 */
public record NodeGpu(
    String node,
    int index,
    String uuid,
    String name,
    String backend,
    long memoryTotalBytes,
    long memoryUsedBytes,
    long memoryReservedBytes,
    double utilization,
    List<Process> processes) {

  public NodeGpu {
    processes = List.copyOf(processes);
  }

  public record Process(long pid, String jobId, long memoryUsedBytes) {}
}
