package io.gpuq.job;

import java.time.Instant;

/**
 * An attempt on a node that the store ended while its worker ran there: its job was cancelled, or
 * its trial pruned. Its worker may still run after a crash of gpuq on that node, which then has to
 * stop it.
 *
 * @param state how its job ended: {@link JobState#CANCELLED} or {@link JobState#PRUNED}
 * @param pid its worker's process as the database knows it; null when gpuq died before writing it
 * @param pidStartTicks that process's kernel start time, null with {@code pid}
 * @param finishedAt when its job finished; null while its worker is being stopped (issue 34: a job
 *     finishes when its worker's last process is gone)
 */
public record StoppedAttempt(
    String jobId,
    int attempt,
    JobState state,
    JobPlacement placement,
    Instant startedAt,
    Long pid,
    Long pidStartTicks,
    Instant finishedAt) {}
