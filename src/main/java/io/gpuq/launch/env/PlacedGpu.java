package io.gpuq.launch.env;

/**
 * One GPU a worker was placed on.
 *
 * @param index the device index on the node
 * @param uuid what goes into {@code CUDA_VISIBLE_DEVICES} ({@code GPU-...} or {@code MIG-...} on
 *     real devices)
 * @param totalBytes the device's total memory, the denominator of every memory fraction
 */
public record PlacedGpu(int index, String uuid, long totalBytes) {

  public PlacedGpu {
    if (index < 0) {
      throw new IllegalArgumentException("GPU index must not be negative: " + index);
    }
    if (uuid == null || uuid.isBlank() || uuid.contains(",")) {
      // A comma would split one device into two entries of CUDA_VISIBLE_DEVICES.
      throw new IllegalArgumentException("GPU uuid must be non-blank without commas: " + uuid);
    }
    if (totalBytes <= 0) {
      throw new IllegalArgumentException("GPU total memory must be positive: " + totalBytes);
    }
  }
}
