package io.gpuq.gpu;

import java.util.List;
import java.util.Optional;

/**
 * This node's GPUs as the selected backend reports them, and why that backend was chosen.
 *
 * @param fallbackReason set when {@code auto} fell back to emulated GPUs
 */
public record GpuInventory(
    String backendKind, List<GpuDevice> devices, Optional<String> fallbackReason) {

  public GpuInventory {
    devices = List.copyOf(devices);
  }

  public Optional<GpuDevice> device(int index) {
    return devices.stream().filter(d -> d.index() == index).findFirst();
  }
}
