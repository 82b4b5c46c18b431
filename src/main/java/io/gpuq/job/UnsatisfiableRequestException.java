package io.gpuq.job;

/**
 * A valid request that can never be satisfied: more GPUs or memory than exist, or more than its
 * owner's running limits let them hold.
 */
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
