package io.gpuq.gpu.nvml;

/**
 * Sizes, offsets and constants from {@code nvml.h} (x86-64 / aarch64 LP64, natural alignment).
 * Written out by hand rather than through JNA {@code Structure} so the layout is visible in one
 * place; {@code src/test/c/fake_nvml.c} declares the same structs in C and the tests check that
 * both agree.
 */
final class NvmlLayout {

  private NvmlLayout() {}

  static final int SUCCESS = 0;
  static final int ERROR_NOT_SUPPORTED = 3;
  static final int ERROR_INSUFFICIENT_SIZE = 7;

  /** {@code NVML_DEVICE_UUID_V2_BUFFER_SIZE}. */
  static final int UUID_BUFFER_SIZE = 96;

  /** {@code NVML_DEVICE_NAME_V2_BUFFER_SIZE}. */
  static final int NAME_BUFFER_SIZE = 96;

  /** {@code NVML_VALUE_NOT_AVAILABLE}, as NVML puts it into an {@code unsigned long long}. */
  static final long VALUE_NOT_AVAILABLE = 0xFFFF_FFFF_FFFF_FFFFL;

  /** {@code nvmlMemory_t} (v1): unsigned long long total, free, used. */
  static final int MEMORY_SIZE = 24;

  static final int MEMORY_TOTAL = 0;
  static final int MEMORY_USED = 16;

  /** {@code nvmlUtilization_t}: unsigned int gpu, memory (percent). */
  static final int UTILIZATION_SIZE = 8;

  static final int UTILIZATION_GPU = 0;

  /**
   * {@code nvmlProcessInfo_t} as filled by the {@code _v3} process queries: unsigned int pid; (4
   * bytes padding) unsigned long long usedGpuMemory; unsigned int gpuInstanceId; unsigned int
   * computeInstanceId.
   */
  static final int PROCESS_INFO_SIZE = 24;

  static final int PROCESS_INFO_PID = 0;
  static final int PROCESS_INFO_USED_GPU_MEMORY = 8;
}
