package io.gpuq.job;

/** The operation is an admin's, and the caller is none: 403. */
public class AdminOnlyException extends RuntimeException {
  public AdminOnlyException(String message) {
    super(message);
  }
}
