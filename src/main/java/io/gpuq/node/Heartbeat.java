package io.gpuq.node;

import io.gpuq.cgroup.NodeCapacity;
import java.time.Instant;

/**
 * One heartbeat of a node: that it is alive at {@code at}, with what it has and gives.
 *
 * @param labels its labels (JSON)
 * @param backend its GPU backend's kind
 * @param gpus its GPUs as they are now (JSON)
 * @param allocatable the cores and memory it gives its jobs
 * @param used what its workers used; null when none was measured
 */
public record Heartbeat(
    String node,
    String labels,
    String backend,
    String gpus,
    NodeCapacity allocatable,
    HostUsage used,
    Instant at) {}
