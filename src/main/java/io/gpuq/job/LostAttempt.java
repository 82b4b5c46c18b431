package io.gpuq.job;

/**
 * An attempt declared lost on a node, with its worker's process as the database knows it (null when
 * gpuq died before writing it).
 */
public record LostAttempt(String jobId, int attempt, Long pid, Long pidStartTicks) {}
