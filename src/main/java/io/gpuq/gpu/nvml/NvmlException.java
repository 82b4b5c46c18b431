package io.gpuq.gpu.nvml;

import io.gpuq.gpu.GpuBackendException;

/** An NVML function returned something other than {@code NVML_SUCCESS}. */
public class NvmlException extends GpuBackendException {

  private final String function;
  private final int returnCode;

  public NvmlException(String function, int returnCode, String errorString) {
    this(function, returnCode, errorString, "");
  }

  /**
   * @param context appended to the message, e.g. {@code " for GPU 1"}
   */
  public NvmlException(String function, int returnCode, String errorString, String context) {
    super(function + " failed" + context + ": NVML error " + returnCode + " (" + errorString + ")");
    this.function = function;
    this.returnCode = returnCode;
  }

  /** The NVML function that failed, e.g. {@code nvmlInit_v2}. */
  public String function() {
    return function;
  }

  /** The {@code nvmlReturn_t}, e.g. 9 for {@code NVML_ERROR_DRIVER_NOT_LOADED}. */
  public int returnCode() {
    return returnCode;
  }
}
