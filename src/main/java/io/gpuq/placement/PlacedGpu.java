package io.gpuq.placement;

import java.math.BigDecimal;
import java.math.MathContext;
import java.math.RoundingMode;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * One GPU a job is placed on, from the placer's decision through the job's record to its worker's
 * environment.
 *
 * @param index the device index on the node
 * @param uuid what goes into {@code CUDA_VISIBLE_DEVICES} ({@code GPU-...} or {@code MIG-...} on
 *     real devices)
 * @param memoryBytes the job's budget on it; the name is the API's ({@code placement.gpus[]})
 * @param totalBytes the device's total memory, the denominator of the memory fraction; 0 in a
 *     placement recorded by a gpuq that did not record it
 */
public record PlacedGpu(int index, String uuid, long memoryBytes, long totalBytes) {

  /** Memory fractions are rounded down to this many decimals (or two significant digits). */
  public static final int FRACTION_DECIMALS = 4;

  public PlacedGpu {
    Objects.requireNonNull(uuid, "uuid");
    if (index < 0) {
      throw new IllegalArgumentException("GPU index must not be negative: " + index);
    }
    if (memoryBytes < 0 || totalBytes < 0) {
      throw new IllegalArgumentException("memory figures must not be negative: GPU " + index);
    }
  }

  /** The budget as a fraction of this GPU's memory: {@link #memoryFraction(long, long)}. */
  public BigDecimal memoryFraction() {
    return memoryFraction(memoryBytes, totalBytes);
  }

  /**
   * Budget ÷ total, rounded down to {@value #FRACTION_DECIMALS} decimals, so a framework that
   * honours it never exceeds the budget. A budget so small that this would be 0 keeps two
   * significant digits instead (still rounded down): a fraction of 0 would tell XLA and torch to
   * allow nothing at all.
   */
  public static BigDecimal memoryFraction(long budgetBytes, long totalBytes) {
    if (totalBytes <= 0 || budgetBytes < 0 || budgetBytes > totalBytes) {
      throw new IllegalArgumentException(
          "need 0 <= budget <= total, got " + budgetBytes + " of " + totalBytes);
    }
    BigDecimal exact =
        BigDecimal.valueOf(budgetBytes)
            .divide(BigDecimal.valueOf(totalBytes), 24, RoundingMode.DOWN);
    BigDecimal rounded = exact.setScale(FRACTION_DECIMALS, RoundingMode.DOWN);
    if (rounded.signum() > 0 || budgetBytes == 0) {
      return rounded;
    }
    return exact.round(new MathContext(2, RoundingMode.DOWN)).stripTrailingZeros();
  }

  /**
   * The one fraction for a job on several GPUs, where a framework takes a single value for all
   * (XLA): the smallest of their fractions, so that it allows no more than the budget on any of
   * them. Empty for a job on no GPU.
   */
  public static Optional<BigDecimal> commonFraction(List<PlacedGpu> gpus) {
    return gpus.stream().map(PlacedGpu::memoryFraction).min(BigDecimal::compareTo);
  }
}
