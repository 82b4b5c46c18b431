package io.gpuq.node;

import java.util.List;
import java.util.Map;

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
}
