package io.gpuq.job;

/** How a stored job stands toward an attempt a node's worker runs; the same for every store. */
public final class Standing {

  private Standing() {}

  public static AttemptStanding of(Job job, int attempt, String node) {
    if (job.attempt() != attempt || !node.equals(job.node())) {
      return AttemptStanding.GONE;
    }
    return switch (job.state()) {
      case RUNNING -> AttemptStanding.RUNS_THERE;
      // Its attempt was this one, on this node: the user cancelled it while it ran.
      case CANCELLED -> AttemptStanding.CANCELLED;
      // Its sweep's early-stopping rule stopped it while it ran.
      case PRUNED -> AttemptStanding.PRUNED;
      default -> AttemptStanding.GONE;
    };
  }
}
