package io.gpuq.job;

/** The request does not fit the job's state, such as cancelling a finished job. */
public class JobConflictException extends RuntimeException {
  public JobConflictException(String message) {
    super(message);
  }
}
