package io.gpuq.launch;

/** Why gpuq itself stopped a worker, so that its exit is not mistaken for its own failure. */
public enum StopReason {
  CANCELLED,
  /** Its sweep's early-stopping rule pruned the trial. */
  PRUNED,
  TIMEOUT,
  OVER_BUDGET,
  /** Its job was declared lost while this node was silent, and given to another node. */
  STALE
}
