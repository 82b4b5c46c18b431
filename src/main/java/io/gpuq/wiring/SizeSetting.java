package io.gpuq.wiring;

import io.gpuq.startup.StartRefusedException;
import io.gpuq.text.MemorySize;

/**
 * A setting that is a size ("2GiB", "512MiB"), read once at start: gpuq refuses to start on a size
 * it cannot read, naming the key and what to write instead.
 */
final class SizeSetting {

  private SizeSetting() {}

  /**
   * @param key the setting's name, as the operator writes it ({@code gpuq.node.reserved-memory})
   * @param text its value; null or blank when unset
   * @param action what to write instead, for the refusal
   * @return the bytes, or null when unset
   * @throws StartRefusedException when it is not a size
   */
  static Long bytes(String key, String text, String action) {
    if (text == null || text.isBlank()) {
      return null;
    }
    try {
      return MemorySize.parse(text.trim());
    } catch (IllegalArgumentException | ArithmeticException e) {
      throw new StartRefusedException(
          key + "=" + text + " is no size (" + e.getMessage() + ")", action, e);
    }
  }
}
