package io.gpuq.node;

import java.time.Instant;
import java.util.List;

/**
 * The nodes' rows: each node's heartbeat, and the other nodes' last. Written in SQL by {@code
 * io.gpuq.storage.JpaNodeStore}.
 */
public interface NodeStore {

  /**
   * Records node {@code name}'s heartbeat at {@code now}, with its labels, GPU backend and GPUs
   * (JSON); its first registers it.
   */
  void beat(String name, String labels, String backend, String gpus, Instant now);

  /** The nodes whose last heartbeat is older than {@code before}. */
  List<Node> silentSince(Instant before);

  /** Every registered node. */
  List<Node> all();
}
