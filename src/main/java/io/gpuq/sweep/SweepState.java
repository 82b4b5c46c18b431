package io.gpuq.sweep;

/** Where a sweep is in its life; computed from its row and its trials' states. */
public enum SweepState {
  /** Some trial is queued or running, or (method external) more may still be added. */
  RUNNING,
  /** Closed, and every trial has ended. */
  DONE,
  /** Cancelled by its owner: its unfinished trials were cancelled with it. */
  CANCELLED
}
