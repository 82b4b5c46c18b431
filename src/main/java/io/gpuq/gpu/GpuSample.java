package io.gpuq.gpu;

import java.util.List;
import java.util.Objects;

/**
 * One reading of one device.
 *
 * @param memoryUsedBytes memory in use on the device (all processes, including ones gpuq did not
 *     start)
 * @param utilization share of the last sampling period the device was busy, 0..1; 0 where the
 *     device cannot tell
 * @param processes the compute processes on the device, ordered by pid
 */
public record GpuSample(
    GpuDevice device, long memoryUsedBytes, double utilization, List<GpuProcessUsage> processes) {
  public GpuSample {
    Objects.requireNonNull(device, "device");
    if (memoryUsedBytes < 0) {
      throw new IllegalArgumentException("memory must not be negative: " + memoryUsedBytes);
    }
    if (!(utilization >= 0 && utilization <= 1)) {
      throw new IllegalArgumentException("utilization must be within 0..1: " + utilization);
    }
    processes = List.copyOf(processes);
  }
}
