package io.gpuq.gpu;

import java.util.Objects;

/**
 * One GPU as its backend found it at start.
 *
 * @param index the backend's device index (NVML index, i.e. PCI bus order)
 * @param uuid stable identity, e.g. {@code GPU-5e0c...}; what goes into CUDA_VISIBLE_DEVICES
 * @param name the product name, e.g. {@code NVIDIA H200}
 * @param memoryTotalBytes the device memory
 */
public record GpuDevice(int index, String uuid, String name, long memoryTotalBytes) {
  public GpuDevice {
    if (index < 0) {
      throw new IllegalArgumentException("device index must not be negative: " + index);
    }
    Objects.requireNonNull(uuid, "uuid");
    Objects.requireNonNull(name, "name");
    if (memoryTotalBytes < 0) {
      throw new IllegalArgumentException("memory must not be negative: " + memoryTotalBytes);
    }
  }
}
