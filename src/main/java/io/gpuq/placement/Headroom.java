package io.gpuq.placement;

/**
 * Memory kept free on every GPU: at least {@code bytes}, and at least {@code fraction} of the GPU's
 * total. Use {@link #ofBytes} or {@link #ofFraction} for one kind; giving both keeps the larger of
 * the two on each GPU (for example "5%, but never under 1 GiB").
 *
 * <p>Parsing "5%" or "1GiB" belongs to configuration; this record takes numbers.
 */
public record Headroom(long bytes, double fraction) {

  public static final Headroom NONE = new Headroom(0, 0);

  public Headroom {
    if (bytes < 0) {
      throw new IllegalArgumentException("headroom bytes must not be negative: " + bytes);
    }
    if (!(fraction >= 0 && fraction < 1)) {
      throw new IllegalArgumentException("headroom fraction must lie in [0, 1): " + fraction);
    }
  }

  public static Headroom ofBytes(long bytes) {
    return new Headroom(bytes, 0);
  }

  public static Headroom ofFraction(double fraction) {
    return new Headroom(0, fraction);
  }

  /** Bytes kept free on a GPU with {@code totalBytes} of memory. */
  public long bytesOf(long totalBytes) {
    return Math.max(bytes, (long) Math.floor(fraction * totalBytes));
  }
}
