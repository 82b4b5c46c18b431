package io.gpuq.job;

/**
 * The process of a job's attempt: its PID and kernel start time, which tell it apart from a later
 * process that reuses the PID.
 */
public record WorkerProcess(String jobId, int attempt, long pid, long startTicks) {}
