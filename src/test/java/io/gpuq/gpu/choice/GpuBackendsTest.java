package io.gpuq.gpu.choice;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.gpuq.gpu.GpuBackend;
import io.gpuq.gpu.GpuBackendException;
import io.gpuq.gpu.GpuBackendSettings;
import io.gpuq.gpu.GpuDevice;
import io.gpuq.gpu.nvml.FakeNvml;
import io.gpuq.gpu.nvml.FakeNvml.Scenario;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

class GpuBackendsTest {

  private static final String MISSING = "/nonexistent/gpuq/libnvidia-ml.so.1";

  private final GpuBackendSettings defaults = GpuBackendSettings.defaults();

  @Test
  @DisplayName("emulated: 2 GPUs of 16 GiB named 'Emulated GPU' by default, no warning")
  void emulatedDefaults() {
    SelectedBackend selected = GpuBackends.open(defaults.withBackend("emulated"));

    try (GpuBackend backend = selected.backend()) {
      assertThat(backend.kind()).isEqualTo("emulated");
      assertThat(backend.devices())
          .containsExactly(
              new GpuDevice(0, "GPU-emulated-0", "Emulated GPU", 16L << 30),
              new GpuDevice(1, "GPU-emulated-1", "Emulated GPU", 16L << 30));
      assertThat(selected.fallbackReason()).isEmpty();
    }
  }

  @Test
  @DisplayName("auto with a library that does not exist falls back to emulated, saying why")
  void autoFallsBackWhenLibraryMissing() {
    SelectedBackend selected =
        GpuBackends.open(defaults.withNvmlLibrary(MISSING).withEmulated(3, 1L << 30, "E"));

    try (GpuBackend backend = selected.backend()) {
      assertThat(backend.kind()).isEqualTo("emulated");
      assertThat(backend.devices()).hasSize(3);
      assertThat(selected.fallbackReason())
          .hasValueSatisfying(
              reason ->
                  assertThat(reason)
                      .contains(MISSING)
                      .contains("could not be loaded")
                      .endsWith("using 3 emulated GPUs"));
    }
  }

  @Test
  @DisplayName("nvml requested explicitly with a library that does not exist is an error")
  void explicitNvmlMissing() {
    assertThatThrownBy(
            () -> GpuBackends.open(defaults.withBackend("nvml").withNvmlLibrary(MISSING)))
        .isInstanceOf(GpuBackendException.class)
        .hasMessageContaining(MISSING)
        .hasMessageContaining("could not be loaded");
  }

  @Test
  @DisplayName("auto with a working NVML uses it")
  void autoUsesNvml() {
    FakeNvml.scenario(Scenario.NORMAL);

    SelectedBackend selected =
        GpuBackends.open(defaults.withNvmlLibrary(FakeNvml.library().toString()));

    try (GpuBackend backend = selected.backend()) {
      assertThat(backend.kind()).isEqualTo("nvml");
      assertThat(backend.devices()).hasSize(2);
      assertThat(selected.fallbackReason()).isEmpty();
    }
  }

  @Test
  @DisplayName("auto falls back when nvmlInit_v2 fails, quoting NVML's error")
  void autoFallsBackWhenInitFails() {
    FakeNvml.scenario(Scenario.INIT_FAILS);

    SelectedBackend selected =
        GpuBackends.open(defaults.withNvmlLibrary(FakeNvml.library().toString()));

    try (GpuBackend backend = selected.backend()) {
      assertThat(backend.kind()).isEqualTo("emulated");
      assertThat(selected.fallbackReason())
          .hasValueSatisfying(reason -> assertThat(reason).contains("Driver Not Loaded"));
    }
  }

  @Test
  @DisplayName("auto falls back when NVML finds no GPU, and shuts NVML down again")
  void autoFallsBackWithoutDevices() {
    FakeNvml.scenario(Scenario.NO_DEVICES);
    int before = FakeNvml.initCount();

    SelectedBackend selected =
        GpuBackends.open(defaults.withNvmlLibrary(FakeNvml.library().toString()));

    try (GpuBackend backend = selected.backend()) {
      assertThat(backend.kind()).isEqualTo("emulated");
      assertThat(selected.fallbackReason())
          .hasValueSatisfying(reason -> assertThat(reason).contains("found no GPU"));
      assertThat(FakeNvml.initCount()).isEqualTo(before);
    }
  }

  @Test
  @DisplayName("nvml requested explicitly on a machine without GPUs is an error")
  void explicitNvmlWithoutDevices() {
    FakeNvml.scenario(Scenario.NO_DEVICES);

    assertThatThrownBy(
            () ->
                GpuBackends.open(
                    defaults.withBackend("nvml").withNvmlLibrary(FakeNvml.library().toString())))
        .isInstanceOf(GpuBackendException.class)
        .hasMessageContaining("found no GPU");
  }

  @Test
  @DisplayName(
      "the default library name tries libnvidia-ml.so.1, then nvidia-ml, and never finds the"
          + " stand-in loaded by tests")
  void defaultLibraryNames() {
    FakeNvml.scenario(Scenario.NORMAL);
    GpuBackends.open(defaults.withNvmlLibrary(FakeNvml.library().toString())).backend().close();

    SelectedBackend selected = GpuBackends.open(defaults);

    try (GpuBackend backend = selected.backend()) {
      if (backend.kind().equals("emulated")) { // this machine has no NVIDIA driver
        assertThat(selected.fallbackReason())
            .hasValueSatisfying(
                reason -> assertThat(reason).contains("libnvidia-ml.so.1 or nvidia-ml"));
      } else { // a real GPU machine
        assertThat(backend.devices()).isNotEmpty();
        assertThat(backend.devices().get(0).uuid()).doesNotStartWith("GPU-00000000-1111");
      }
    }
  }

  @Test
  @DisplayName("the backend setting is one of auto, nvml, emulated, in any case")
  void backendSetting() {
    assertThat(defaults.withBackend(" NVML ").backend()).isEqualTo("nvml");
    assertThatThrownBy(() -> defaults.withBackend("cuda"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("auto, nvml, emulated");
  }
}
