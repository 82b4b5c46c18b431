package io.gpuq.launch;

import io.gpuq.job.HostResources;
import io.gpuq.job.JobPlacement;
import java.time.Instant;

/**
 * A worker recorded as running by an earlier gpuq on this node.
 *
 * @param deadline when its timeout runs out, or null
 * @param host the cores and host memory its job was given; null counts as one core, no memory
 */
public record AdoptRequest(
    String jobId,
    int attempt,
    long pid,
    long pidStartTicks,
    Instant startedAt,
    Instant deadline,
    JobPlacement placement,
    HostResources host) {}
