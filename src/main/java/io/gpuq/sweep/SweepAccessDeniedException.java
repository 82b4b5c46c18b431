package io.gpuq.sweep;

/** The sweep belongs to another owner, and the caller is no admin. */
public class SweepAccessDeniedException extends RuntimeException {

  public SweepAccessDeniedException(String id) {
    super("sweep " + id + " belongs to another user");
  }
}
