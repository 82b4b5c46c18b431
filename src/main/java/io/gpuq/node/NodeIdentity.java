package io.gpuq.node;

import java.util.Map;

/**
 * This node: its name in placements and in {@code /api/v1/gpus}, and the labels that jobs' node
 * selectors match.
 */
public record NodeIdentity(String name, Map<String, String> labels) {

  public NodeIdentity {
    labels = Map.copyOf(labels);
  }
}
