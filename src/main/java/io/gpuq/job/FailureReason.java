package io.gpuq.job;

/** Why a job (or one attempt of it) failed. */
public enum FailureReason {
  /** The process exited with a non-zero code. */
  EXIT_CODE,
  /** The process died of GPU out-of-memory, recognised from its exit and log. */
  OUT_OF_MEMORY,
  /**
   * The kernel killed it at its host memory cap ({@code resources.memory}), as its cgroup's own
   * {@code oom_kill} counter says; never guessed from an exit code or a log.
   */
  HOST_OUT_OF_MEMORY,
  /** gpuq stopped it because it used more GPU memory than its budget, to protect its neighbours. */
  OVER_BUDGET,
  /**
   * gpuq stopped it because it wrote more than {@code gpuq.worker.max-work-size} into its work
   * directory, to keep the data directory from filling.
   */
  OVER_WORK_SIZE,
  /** It ran longer than its timeout. */
  TIMEOUT,
  /** Its process or node disappeared. */
  LOST,
  /** It could not be started. */
  LAUNCH_ERROR,
  /**
   * Its worker ran to its end while gpuq was not watching, but its exit code could not be written
   * (the data directory was full): it may have done its work, so it is not run again.
   */
  EXIT_UNRECORDED;

  /**
   * Whether an attempt that failed so is tried again while the job has attempts left: not when it
   * could not start (it would fail alike), nor when it may have done its work.
   */
  public boolean isRetried() {
    return this != LAUNCH_ERROR && this != EXIT_UNRECORDED;
  }

  /** Failures for lack of host memory are retried with a larger cap ({@code retry.oomGrowth}). */
  public boolean isHostMemoryFailure() {
    return this == HOST_OUT_OF_MEMORY;
  }

  /** Failures for lack of GPU memory are retried with a larger budget. */
  public boolean isMemoryFailure() {
    return this == OUT_OF_MEMORY || this == OVER_BUDGET;
  }
}
