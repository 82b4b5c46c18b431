package io.gpuq.job;

public class JobNotFoundException extends RuntimeException {
  public JobNotFoundException(String id) {
    super("no job with id " + id);
  }
}
