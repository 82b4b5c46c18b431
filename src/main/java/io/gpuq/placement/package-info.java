/**
 * Which queued job starts on which GPUs: the {@code Placer}, its policy (headroom, start spacing,
 * reservation), and the values it works in (memory demands, GPU capacities, placed GPUs and the
 * memory fraction). Plain Java, no I/O: a pure function of the queue and the node.
 */
package io.gpuq.placement;
