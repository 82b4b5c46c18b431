package io.gpuq.job;

/**
 * How an attempt ended, as gpuq judges it.
 *
 * @param failureReason null when it succeeded
 */
public record AttemptOutcome(FailureReason failureReason, String message, int exitCode) {

  public static AttemptOutcome succeeded() {
    return new AttemptOutcome(null, null, 0);
  }

  public boolean isSuccess() {
    return failureReason == null;
  }
}
