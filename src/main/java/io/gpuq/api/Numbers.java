package io.gpuq.api;

/** Numbers as JSON can carry them. */
final class Numbers {

  private Numbers() {}

  /** The value, or null for NaN and the infinities, which JSON has no words for. */
  static Double finite(Double value) {
    return value == null || Double.isNaN(value) || Double.isInfinite(value) ? null : value;
  }
}
