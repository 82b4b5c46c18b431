package io.gpuq.placement;

/**
 * GPU memory a job asks for on each of its GPUs. Ignored for CPU-only requests ({@code gpus == 0}).
 *
 * <p>The records accept any value so that a bad demand can be refused with a reason by {@link
 * Placer#feasibility} rather than by an exception.
 */
public sealed interface MemoryDemand {

  /** A fixed budget per GPU. Must be positive to be feasible. */
  record Bytes(long bytes) implements MemoryDemand {}

  /**
   * A share of each GPU's schedulable memory (total minus headroom); the budget on a GPU is {@code
   * floor(fraction × schedulable)}. Must lie in (0, 1] to be feasible.
   */
  record Fraction(double fraction) implements MemoryDemand {}

  /** The GPU for this job alone: the budget is all of its schedulable memory. */
  record WholeGpu() implements MemoryDemand {}

  static MemoryDemand bytes(long bytes) {
    return new Bytes(bytes);
  }

  static MemoryDemand fraction(double fraction) {
    return new Fraction(fraction);
  }

  static MemoryDemand wholeGpu() {
    return new WholeGpu();
  }

  /**
   * The demand of a request or row that holds a byte budget or a fraction, or neither for whole
   * GPUs: the two nullable fields of the API and the database, read once into one value.
   */
  static MemoryDemand of(Long bytes, Double fraction) {
    if (bytes != null) {
      return bytes(bytes);
    }
    if (fraction != null) {
      return fraction(fraction);
    }
    return wholeGpu();
  }

  /** The byte budget asked for, or null: the API's {@code gpuMemory} and its column. */
  default Long bytesOrNull() {
    return this instanceof Bytes b ? b.bytes() : null;
  }

  /** The fraction asked for, or null: the API's {@code gpuFraction} and its column. */
  default Double fractionOrNull() {
    return this instanceof Fraction f ? f.fraction() : null;
  }
}
