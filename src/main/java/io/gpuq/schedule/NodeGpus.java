package io.gpuq.schedule;

import io.gpuq.gpu.GpuBackend;
import io.gpuq.gpu.GpuInventory;
import io.gpuq.gpu.GpuUsage;
import java.util.function.Supplier;

/**
 * This node's GPUs, as the scheduler sees them.
 *
 * @param backend what attaches workers to them and detaches them again
 * @param inventory the GPUs it found at start-up
 * @param usage their last measured use
 */
public record NodeGpus(GpuBackend backend, GpuInventory inventory, Supplier<GpuUsage> usage) {}
