package io.gpuq.sweep;

/** What was asked of the sweep does not fit its method or its state (closed, cancelled, full). */
public class SweepConflictException extends RuntimeException {

  public SweepConflictException(String message) {
    super(message);
  }
}
