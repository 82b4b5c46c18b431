package io.gpuq.gpu.nvml;

import com.sun.jna.Library;
import com.sun.jna.Pointer;
import com.sun.jna.ptr.IntByReference;
import com.sun.jna.ptr.PointerByReference;

/**
 * The part of {@code nvml.h} gpuq calls, bound by JNA interface mapping (so that the library can be
 * chosen at run time, including a stand-in in tests). Every function returns an {@code
 * nvmlReturn_t}; structs are passed as raw memory laid out as in {@link NvmlLayout}.
 */
interface NvmlNative extends Library {

  /** Versioned symbols bound below; checked for presence when the library is opened. */
  String[] SYMBOLS = {
    "nvmlInit_v2",
    "nvmlShutdown",
    "nvmlErrorString",
    "nvmlDeviceGetCount_v2",
    "nvmlDeviceGetHandleByIndex_v2",
    "nvmlDeviceGetUUID",
    "nvmlDeviceGetName",
    "nvmlDeviceGetMemoryInfo",
    "nvmlDeviceGetUtilizationRates",
    "nvmlDeviceGetComputeRunningProcesses_v3",
  };

  int nvmlInit_v2();

  int nvmlShutdown();

  /** A static string owned by NVML. */
  String nvmlErrorString(int result);

  int nvmlDeviceGetCount_v2(IntByReference deviceCount);

  int nvmlDeviceGetHandleByIndex_v2(int index, PointerByReference device);

  int nvmlDeviceGetUUID(Pointer device, byte[] uuid, int length);

  int nvmlDeviceGetName(Pointer device, byte[] name, int length);

  /** {@code nvmlMemory_t *memory}. */
  int nvmlDeviceGetMemoryInfo(Pointer device, Pointer memory);

  /** {@code nvmlUtilization_t *utilization}. */
  int nvmlDeviceGetUtilizationRates(Pointer device, Pointer utilization);

  /** {@code unsigned int *infoCount, nvmlProcessInfo_t *infos} (infos may be null). */
  int nvmlDeviceGetComputeRunningProcesses_v3(
      Pointer device, IntByReference infoCount, Pointer infos);
}
