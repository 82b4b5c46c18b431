package io.gpuq.job;

/** What the store says of an attempt whose worker runs on a node: go on, or stop it, and why. */
public enum AttemptStanding {
  /** It is still the job's running attempt, on that node. */
  RUNS_THERE,
  /** A user cancelled the job: its worker is stopped, and the job stays CANCELLED. */
  CANCELLED,
  /** Its sweep's early-stopping rule pruned the trial: its worker is stopped, it stays PRUNED. */
  PRUNED,
  /**
   * The job no longer runs there: declared lost while the node was silent (and perhaps running
   * elsewhere now), or ended. Its worker is stale.
   */
  GONE;

  /** How a stored job stands toward an attempt a node's worker runs; the same for every store. */
  public static AttemptStanding of(Job job, int attempt, String node) {
    if (job.attempt() != attempt || !node.equals(job.node())) {
      return GONE;
    }
    return switch (job.state()) {
      case RUNNING -> RUNS_THERE;
      // Its attempt was this one, on this node: the user cancelled it while it ran.
      case CANCELLED -> CANCELLED;
      // Its sweep's early-stopping rule stopped it while it ran.
      case PRUNED -> PRUNED;
      default -> GONE;
    };
  }
}
