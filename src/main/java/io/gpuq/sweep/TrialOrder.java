package io.gpuq.sweep;

import java.util.Optional;

/** How a sweep's trials table is sorted; trials of one value keep the order of their numbers. */
public enum TrialOrder {
  /** The best value first, whatever the goal; trials that reported no value last. */
  METRIC("metric"),
  /** The worst value first; trials that reported no value still last. */
  METRIC_WORST_FIRST("-metric"),
  /** In the order the trials were created: by number. */
  CREATED("created");

  private final String wireName;

  TrialOrder(String wireName) {
    this.wireName = wireName;
  }

  public String wireName() {
    return wireName;
  }

  public static Optional<TrialOrder> fromWire(String text) {
    for (TrialOrder order : values()) {
      if (order.wireName.equals(text)) {
        return Optional.of(order);
      }
    }
    return Optional.empty();
  }

  /**
   * Whether rows come by ascending value: the best first for a loss (minimize), or the worst first
   * for an accuracy.
   */
  public boolean ascendingValues(Goal goal) {
    return (this == METRIC) == (goal == Goal.MINIMIZE);
  }
}
