package io.gpuq.launch;

import io.gpuq.job.JobPlacement;
import java.time.Instant;

/**
 * A worker recorded as running by an earlier gpuq on this node.
 *
 * @param deadline when its timeout runs out, or null
 */
public record AdoptRequest(
    String jobId,
    int attempt,
    long pid,
    long pidStartTicks,
    Instant startedAt,
    Instant deadline,
    JobPlacement placement) {}
