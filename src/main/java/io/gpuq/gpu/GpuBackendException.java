package io.gpuq.gpu;

/** A backend could not be opened or could not take a sample. */
public class GpuBackendException extends RuntimeException {
  public GpuBackendException(String message) {
    super(message);
  }

  public GpuBackendException(String message, Throwable cause) {
    super(message, cause);
  }
}
