/**
 * The node's GPUs: the backend that lists and measures them (NVML, or emulated from {@code /proc}),
 * the inventory read once at start, and the poller whose samples the guard, the metrics and the
 * placer read. Plain Java.
 */
package io.gpuq.gpu;
