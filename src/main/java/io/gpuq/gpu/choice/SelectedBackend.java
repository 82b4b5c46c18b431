package io.gpuq.gpu.choice;

import io.gpuq.gpu.GpuBackend;
import java.util.Objects;
import java.util.Optional;

/**
 * The backend {@link GpuBackends#open} chose.
 *
 * @param fallbackReason present when {@code auto} wanted NVML but fell back to the emulation: why
 *     NVML was not usable, worth a loud warning in the log
 */
public record SelectedBackend(GpuBackend backend, Optional<String> fallbackReason) {
  public SelectedBackend {
    Objects.requireNonNull(backend, "backend");
    Objects.requireNonNull(fallbackReason, "fallbackReason");
  }
}
