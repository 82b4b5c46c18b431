package io.gpuq.node;

import io.gpuq.cgroup.NodeCapacity;
import java.time.Instant;
import java.util.List;
import java.util.Map;

/**
 * The nodes' rows: each node's heartbeat, and the other nodes' last. Written in SQL by {@code
 * io.gpuq.storage.JpaNodeStore}.
 */
public interface NodeStore {

  /**
   * Records node {@code name}'s heartbeat at {@code now}, with its labels, GPU backend and GPUs
   * (JSON), the cores and memory it gives its jobs, and what its workers used ({@code used} null:
   * none measured); its first registers it.
   */
  void beat(
      String name,
      String labels,
      String backend,
      String gpus,
      NodeCapacity allocatable,
      HostUsage used,
      Instant now);

  /** The nodes whose last heartbeat is older than {@code before}. */
  List<Node> silentSince(Instant before);

  /** Every registered node. */
  List<Node> all();

  /**
   * Per node, what its RUNNING jobs were given: the sums of their cores and host memory, in one
   * grouped query. A node with no running job is absent.
   */
  Map<String, Allocated> allocatedByNode();
}
