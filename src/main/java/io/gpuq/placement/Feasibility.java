package io.gpuq.placement;

import java.util.Objects;

/** Whether a request could ever start on a node, were the node empty. */
public sealed interface Feasibility {

  Feasibility FEASIBLE = new Feasible();

  /** The request fits the node once nothing else runs there. */
  record Feasible() implements Feasibility {}

  /**
   * The request can never start on this node.
   *
   * @param reason for a person, naming what was asked and what the node has
   */
  record Infeasible(String reason) implements Feasibility {
    public Infeasible {
      Objects.requireNonNull(reason, "reason");
    }
  }

  default boolean isFeasible() {
    return this instanceof Feasible;
  }
}
