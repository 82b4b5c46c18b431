package io.gpuq.gpu.nvml;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.gpuq.gpu.GpuBackendException;
import io.gpuq.gpu.GpuDevice;
import io.gpuq.gpu.GpuProcessUsage;
import io.gpuq.gpu.GpuSample;
import io.gpuq.gpu.nvml.FakeNvml.Scenario;
import java.util.List;
import java.util.stream.LongStream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** The JNA binding against a compiled C stand-in of libnvidia-ml.so.1 (src/test/c/fake_nvml.c). */
class NvmlGpuBackendTest {

  private static final long GIB = 1L << 30;

  private static String library;

  @BeforeAll
  static void buildStandIn() {
    library = FakeNvml.library().toString();
  }

  private static NvmlGpuBackend open(Scenario scenario) {
    FakeNvml.scenario(scenario);
    return NvmlGpuBackend.open(library);
  }

  @Test
  @DisplayName("opening enumerates the devices with UUID, name and total memory")
  void devices() {
    try (NvmlGpuBackend nvml = open(Scenario.NORMAL)) {
      assertThat(nvml.kind()).isEqualTo("nvml");
      assertThat(nvml.library()).isEqualTo(library);
      assertThat(nvml.devices())
          .containsExactly(
              new GpuDevice(
                  0, "GPU-00000000-1111-2222-3333-444444444444", "NVIDIA Fake A100", 40 * GIB),
              new GpuDevice(
                  1,
                  "GPU-55555555-6666-7777-8888-999999999999",
                  "NVIDIA Fake H100 80GB HBM3",
                  80 * GIB));
    }
  }

  @Test
  @DisplayName("a sample has used memory, utilization and the compute processes of each device")
  void sample() {
    try (NvmlGpuBackend nvml = open(Scenario.NORMAL)) {
      List<GpuSample> samples = nvml.sample();

      assertThat(samples)
          .containsExactly(
              new GpuSample(
                  nvml.devices().get(0),
                  3 * GIB,
                  0.63,
                  List.of(new GpuProcessUsage(1001, GIB), new GpuProcessUsage(1002, 2 * GIB))),
              new GpuSample(nvml.devices().get(1), 0, 0, List.of()));
    }
  }

  @Test
  @DisplayName("close balances nvmlInit_v2 with nvmlShutdown, once, and sampling then fails")
  void closeShutsDown() {
    int before = FakeNvml.initCount();
    NvmlGpuBackend nvml = open(Scenario.NORMAL);
    assertThat(FakeNvml.initCount()).isEqualTo(before + 1);

    nvml.close();
    nvml.close();

    assertThat(FakeNvml.initCount()).isEqualTo(before);
    assertThatThrownBy(nvml::sample)
        .isInstanceOf(GpuBackendException.class)
        .hasMessageContaining("closed");
  }

  @Test
  @DisplayName("a process list that grows past the headroom between calls is read again, whole")
  void growingProcessList() {
    try (NvmlGpuBackend nvml = open(Scenario.GROWING_LIST)) {
      List<GpuProcessUsage> processes = nvml.sample().get(0).processes();

      // Sizing call says 3, the read (room for 11) finds 20, the third read gets all 20.
      assertThat(FakeNvml.processCalls()).isEqualTo(3);
      assertThat(processes)
          .extracting(GpuProcessUsage::pid)
          .containsExactlyElementsOf(LongStream.rangeClosed(1001, 1020).boxed().toList());
      assertThat(processes.get(19).memoryUsedBytes()).isEqualTo(20 * GIB);
    }
  }

  @Test
  @DisplayName("a process list that never stops growing fails after a bounded number of calls")
  void everGrowingProcessList() {
    try (NvmlGpuBackend nvml = open(Scenario.EVER_GROWING_LIST)) {
      assertThatThrownBy(nvml::sample)
          .isInstanceOfSatisfying(
              NvmlException.class,
              e -> {
                assertThat(e.function()).isEqualTo("nvmlDeviceGetComputeRunningProcesses_v3");
                assertThat(e.returnCode()).isEqualTo(7);
              })
          .hasMessageContaining("Insufficient Size")
          .hasMessageContaining("GPU 0")
          .hasMessageContaining("kept growing");
      assertThat(FakeNvml.processCalls()).isEqualTo(NvmlGpuBackend.MAX_PROCESS_LIST_ATTEMPTS);
    }
  }

  @Test
  @DisplayName(
      "usedGpuMemory = NVML_VALUE_NOT_AVAILABLE is reported as 0, the process still listed")
  void memoryNotAvailable() {
    try (NvmlGpuBackend nvml = open(Scenario.MEMORY_NOT_AVAILABLE)) {
      assertThat(nvml.sample().get(0).processes())
          .containsExactly(new GpuProcessUsage(1001, 0), new GpuProcessUsage(1002, 0));
    }
  }

  @Test
  @DisplayName("utilization NOT_SUPPORTED reads as 0")
  void utilizationNotSupported() {
    try (NvmlGpuBackend nvml = open(Scenario.UTILIZATION_NOT_SUPPORTED)) {
      GpuSample gpu0 = nvml.sample().get(0);

      assertThat(gpu0.utilization()).isZero();
      assertThat(gpu0.memoryUsedBytes()).isEqualTo(3 * GIB);
    }
  }

  @Test
  @DisplayName("nvmlInit_v2 failing makes open fail with the function, code and NVML's text")
  void initFails() {
    int before = FakeNvml.initCount();

    assertThatThrownBy(() -> open(Scenario.INIT_FAILS))
        .isInstanceOf(GpuBackendException.class)
        .hasMessageContaining(library)
        .hasMessageContaining("nvmlInit_v2 failed: NVML error 9 (Driver Not Loaded)")
        .cause()
        .isInstanceOfSatisfying(NvmlException.class, e -> assertThat(e.returnCode()).isEqualTo(9));
    assertThat(FakeNvml.initCount()).isEqualTo(before);
  }

  @Test
  @DisplayName("a failing call while sampling names the function, the GPU and NVML's text")
  void gpuLost() {
    try (NvmlGpuBackend nvml = open(Scenario.GPU_LOST)) {
      assertThatThrownBy(nvml::sample)
          .isInstanceOfSatisfying(
              NvmlException.class,
              e -> {
                assertThat(e.function()).isEqualTo("nvmlDeviceGetMemoryInfo");
                assertThat(e.returnCode()).isEqualTo(15);
              })
          .hasMessage("nvmlDeviceGetMemoryInfo failed for GPU 1: NVML error 15 (GPU is lost)");
    }
  }

  @Test
  @DisplayName("a machine with NVML but no GPU opens with no devices")
  void noDevices() {
    try (NvmlGpuBackend nvml = open(Scenario.NO_DEVICES)) {
      assertThat(nvml.devices()).isEmpty();
      assertThat(nvml.sample()).isEmpty();
    }
  }

  @Test
  @DisplayName("a library file that does not exist is reported, not a crash")
  void missingLibrary() {
    String missing = FakeNvml.library().resolveSibling("absent/libnvidia-ml.so.1").toString();

    assertThatThrownBy(() -> NvmlGpuBackend.open(missing))
        .isInstanceOf(GpuBackendException.class)
        .hasMessageStartingWith("NVML library " + missing + " could not be loaded");
  }

  @Test
  @DisplayName("a library without the NVML symbols is reported as too old")
  void libraryWithoutSymbols() {
    assertThatThrownBy(() -> NvmlGpuBackend.open("libc.so.6"))
        .isInstanceOf(GpuBackendException.class)
        .hasMessageContaining("libc.so.6")
        .hasMessageContaining("has no nvmlInit_v2");
  }
}
