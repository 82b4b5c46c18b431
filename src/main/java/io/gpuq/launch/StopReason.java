package io.gpuq.launch;

/** Why gpuq itself stopped a worker, so that its exit is not mistaken for its own failure. */
public enum StopReason {
  CANCELLED,
  /** Its sweep's early-stopping rule pruned the trial. */
  PRUNED,
  TIMEOUT,
  OVER_BUDGET,
  /** It wrote more than {@code gpuq.worker.max-work-size} into its work directory. */
  OVER_WORK_SIZE,
  /**
   * Preempted (issue 35): for fair share, or requeued on request; its job goes back to the queue.
   */
  PREEMPTED,
  /** Its job was declared lost while this node was silent, and given to another node. */
  STALE
}
