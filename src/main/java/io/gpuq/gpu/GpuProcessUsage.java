package io.gpuq.gpu;

/**
 * GPU memory held by one process on one device.
 *
 * @param memoryUsedBytes 0 when the backend cannot tell (NVML reports "not available" e.g. for
 *     processes of another container without the needed privileges)
 */
public record GpuProcessUsage(long pid, long memoryUsedBytes) {
  public GpuProcessUsage {
    if (pid < 0) {
      throw new IllegalArgumentException("pid must not be negative: " + pid);
    }
    if (memoryUsedBytes < 0) {
      throw new IllegalArgumentException("memory must not be negative: " + memoryUsedBytes);
    }
  }
}
