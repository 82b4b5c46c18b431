package io.gpuq.launch;

/**
 * A worker's process ended.
 *
 * @param exitCode its exit code (128 + N when it died of signal N), or null when nobody saw it: an
 *     adopted worker that died without its wrapper writing one
 * @param stopReason why gpuq stopped it, or null when it ended by itself
 */
public record WorkerExit(
    String jobId, int attempt, long pid, Integer exitCode, StopReason stopReason) {}
