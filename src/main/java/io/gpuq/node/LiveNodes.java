package io.gpuq.node;

import io.gpuq.cgroup.NodeCapacity;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The gpuq nodes a job may run on, as this node knows them: itself, by its own labels, and the
 * others that are alive by their last heartbeat. {@link NodeRegistry} reads them from the shared
 * database; a test states them.
 */
public interface LiveNodes {

  /** This node's name. */
  String self();

  /** Whether a job's node selector matches this node's labels. */
  boolean selects(Map<String, String> selector);

  /** The labels of every live node other than this one, by node name. */
  Map<String, Map<String, String>> otherLiveNodes();

  /** The GPUs of the other live nodes, as of their last heartbeat. */
  List<NodeGpu> otherLiveNodesGpus();

  /**
   * The cores and host memory this node gives its jobs; empty when not known (then they are not
   * checked at submit).
   */
  default Optional<NodeCapacity> allocatable() {
    return Optional.empty();
  }

  /**
   * Forgets what was last read of the other nodes, so that the next question reads them afresh.
   *
   * @return whether there was anything to forget: false where the answers are always fresh
   */
  default boolean readAgain() {
    return false;
  }

  /**
   * The cores and host memory each other live node gives its jobs, as its last heartbeat wrote them
   * in the nodes table; a node that wrote none (older than these figures) is absent.
   */
  default Map<String, NodeCapacity> otherLiveNodesAllocatable() {
    return Map.of();
  }
}
