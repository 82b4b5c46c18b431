/**
 * Reading {@code /proc}: process trees, resident memory, CPU time and start times, for the emulated
 * GPUs, the metrics and re-adopting workers. Plain Java.
 */
package io.gpuq.proc;
