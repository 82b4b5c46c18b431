package io.gpuq.node;

import java.time.Instant;
import java.util.List;
import java.util.Map;

/**
 * The nodes' rows: each node's heartbeat, and the other nodes' last. Written in SQL by {@code
 * io.gpuq.storage.JpaNodeStore}.
 */
public interface NodeStore {

  /** Records a node's heartbeat; its first registers it. */
  void beat(Heartbeat beat);

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
