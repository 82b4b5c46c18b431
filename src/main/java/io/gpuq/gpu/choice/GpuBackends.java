package io.gpuq.gpu.choice;

import io.gpuq.gpu.GpuBackend;
import io.gpuq.gpu.GpuBackendException;
import io.gpuq.gpu.GpuBackendSettings;
import io.gpuq.gpu.emulated.EmulatedGpuBackend;
import io.gpuq.gpu.nvml.NvmlGpuBackend;
import java.util.Optional;

/** Opens the GPU backend the settings ask for. */
public final class GpuBackends {

  private GpuBackends() {}

  /**
   * {@code emulated}: the emulation. {@code nvml}: NVML, or a {@link GpuBackendException} saying
   * why it cannot be used (library missing, {@code nvmlInit} failing, no device). {@code auto}:
   * NVML when the library loads, initialises and finds at least one device; otherwise the
   * emulation, with the reason NVML was not used.
   */
  public static SelectedBackend open(GpuBackendSettings settings) {
    return switch (settings.backend()) {
      case GpuBackendSettings.EMULATED -> new SelectedBackend(emulated(settings), Optional.empty());
      case GpuBackendSettings.NVML -> new SelectedBackend(nvml(settings), Optional.empty());
      default -> {
        try {
          yield new SelectedBackend(nvml(settings), Optional.empty());
        } catch (GpuBackendException e) {
          yield new SelectedBackend(
              emulated(settings),
              Optional.of(
                  e.getMessage() + "; using " + settings.emulatedCount() + " emulated GPUs"));
        }
      }
    };
  }

  private static GpuBackend nvml(GpuBackendSettings settings) {
    NvmlGpuBackend backend = NvmlGpuBackend.open(settings.nvmlLibrary());
    if (backend.devices().isEmpty()) {
      backend.close();
      throw new GpuBackendException("NVML found no GPU (nvmlDeviceGetCount_v2 returned 0)");
    }
    return backend;
  }

  private static GpuBackend emulated(GpuBackendSettings settings) {
    return EmulatedGpuBackend.create(
        settings.emulatedCount(),
        settings.emulatedMemoryBytes(),
        settings.emulatedName(),
        settings.procFs(),
        settings.clock());
  }
}
