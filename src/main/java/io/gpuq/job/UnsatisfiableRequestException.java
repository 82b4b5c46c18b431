package io.gpuq.job;

/** A valid request that this node can never satisfy (more GPUs or memory than exist). */
public class UnsatisfiableRequestException extends RuntimeException {
  private final String field;

  public UnsatisfiableRequestException(String field, String message) {
    super(message);
    this.field = field;
  }

  public String field() {
    return field;
  }
}
