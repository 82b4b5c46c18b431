package io.gpuq.job;

/** The job exists but belongs to someone else; only its owner and admins may see it. */
public class JobAccessDeniedException extends RuntimeException {
  public JobAccessDeniedException(String id) {
    super("job " + id + " belongs to another user");
  }
}
