package io.gpuq.gpu;

import io.gpuq.proc.ProcFs;
import java.time.Clock;
import java.util.Objects;
import java.util.Set;

/**
 * How to open a {@link GpuBackend}.
 *
 * @param backend {@code "auto"} (NVML when it works and finds a GPU, else emulated), {@code "nvml"}
 *     or {@code "emulated"}
 * @param nvmlLibrary the NVML library: {@link #DEFAULT_NVML_LIBRARY} (tries {@code
 *     libnvidia-ml.so.1}, then {@code nvidia-ml}), another library name, or a file path
 * @param emulatedCount how many GPUs to emulate
 * @param emulatedMemoryBytes memory of each emulated GPU
 * @param emulatedName product name of the emulated GPUs
 * @param procFs where the emulation reads processes from
 * @param clock what the emulation measures elapsed time (for utilization) with
 */
public record GpuBackendSettings(
    String backend,
    String nvmlLibrary,
    int emulatedCount,
    long emulatedMemoryBytes,
    String emulatedName,
    ProcFs procFs,
    Clock clock) {

  public static final String AUTO = "auto";
  public static final String NVML = "nvml";
  public static final String EMULATED = "emulated";
  public static final String DEFAULT_NVML_LIBRARY = "nvidia-ml";
  public static final int DEFAULT_EMULATED_COUNT = 2;
  public static final long DEFAULT_EMULATED_MEMORY_BYTES = 16L << 30;
  public static final String DEFAULT_EMULATED_NAME = "Emulated GPU";

  private static final Set<String> BACKENDS = Set.of(AUTO, NVML, EMULATED);

  public GpuBackendSettings {
    Objects.requireNonNull(backend, "backend");
    backend = backend.trim().toLowerCase(java.util.Locale.ROOT);
    if (!BACKENDS.contains(backend)) {
      throw new IllegalArgumentException(
          "GPU backend must be one of auto, nvml, emulated, not '" + backend + "'");
    }
    Objects.requireNonNull(nvmlLibrary, "nvmlLibrary");
    if (nvmlLibrary.isBlank()) {
      throw new IllegalArgumentException("NVML library must not be blank");
    }
    if (emulatedCount < 0) {
      throw new IllegalArgumentException(
          "emulated GPU count must not be negative: " + emulatedCount);
    }
    if (emulatedMemoryBytes <= 0) {
      throw new IllegalArgumentException(
          "emulated GPU memory must be positive: " + emulatedMemoryBytes);
    }
    Objects.requireNonNull(emulatedName, "emulatedName");
    Objects.requireNonNull(procFs, "procFs");
    Objects.requireNonNull(clock, "clock");
  }

  /** auto, {@code nvidia-ml}, 2 × 16 GiB "Emulated GPU", this machine's /proc, the UTC clock. */
  public static GpuBackendSettings defaults() {
    return new GpuBackendSettings(
        AUTO,
        DEFAULT_NVML_LIBRARY,
        DEFAULT_EMULATED_COUNT,
        DEFAULT_EMULATED_MEMORY_BYTES,
        DEFAULT_EMULATED_NAME,
        ProcFs.system(),
        Clock.systemUTC());
  }

  public GpuBackendSettings withBackend(String backend) {
    return new GpuBackendSettings(
        backend, nvmlLibrary, emulatedCount, emulatedMemoryBytes, emulatedName, procFs, clock);
  }

  public GpuBackendSettings withNvmlLibrary(String nvmlLibrary) {
    return new GpuBackendSettings(
        backend, nvmlLibrary, emulatedCount, emulatedMemoryBytes, emulatedName, procFs, clock);
  }

  public GpuBackendSettings withEmulated(int count, long memoryBytes, String name) {
    return new GpuBackendSettings(backend, nvmlLibrary, count, memoryBytes, name, procFs, clock);
  }
}
