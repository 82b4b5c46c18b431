package io.gpuq.job;

/**
 * What a notification (issue 37) is sent on. {@code FAILED} is any end that is not SUCCEEDED or
 * PRUNED (a pruned trial was stopped by its sweep's own rule); {@code DONE} is a sweep's end.
 */
public enum NotifyEvent {
  STARTED,
  ENDED,
  FAILED,
  DONE
}
