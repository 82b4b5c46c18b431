package io.gpuq.launch;

/**
 * A worker's process ended.
 *
 * @param exitCode its exit code; 128 + N when it died of signal N
 * @param stopReason why gpuq stopped it, or null when it ended by itself
 */
public record WorkerExit(
    String jobId, int attempt, long pid, int exitCode, StopReason stopReason) {}
