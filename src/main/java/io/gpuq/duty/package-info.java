/**
 * Periodic duties: the small jobs gpuq does on its own every so often (poll GPUs, enforce timeouts,
 * heartbeat), each its own class, run on a fixed delay by {@code PeriodicDuties}, which survives
 * their failures. A leaf: the packages that have duties depend on it, it depends on none of them.
 */
package io.gpuq.duty;
