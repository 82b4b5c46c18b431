package io.gpuq.job;

/**
 * How an attempt ended, as gpuq judges it.
 *
 * @param failureReason null when it succeeded
 * @param exitCode null when nobody saw it (a worker lost while gpuq was down)
 */
public record AttemptOutcome(FailureReason failureReason, String message, Integer exitCode) {

  public static AttemptOutcome succeeded() {
    return new AttemptOutcome(null, null, 0);
  }

  public boolean isSuccess() {
    return failureReason == null;
  }
}
