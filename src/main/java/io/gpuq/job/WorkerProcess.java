package io.gpuq.job;

/**
 * The process of a job's attempt: its PID and kernel start time, which tell it apart from a later
 * process that reuses the PID, and the cores it was given.
 *
 * @param cores null when it was bound to none (confinement off), or when only its PID is known (the
 *     process file a worker's launch writes holds no cores)
 */
public record WorkerProcess(
    String jobId, int attempt, long pid, long startTicks, BoundCores cores) {

  public WorkerProcess(String jobId, int attempt, long pid, long startTicks) {
    this(jobId, attempt, pid, startTicks, null);
  }
}
