package io.gpuq.launch;

import java.time.Instant;

/**
 * What a worker's wrapper wrote when its command exited, even while gpuq was down.
 *
 * @param writtenAt when the exit file was last written: the wrapper opens it as it starts and
 *     writes it once, as the command ends, so this is when the attempt ended
 */
public record RecordedExit(int exitCode, Instant writtenAt) {}
