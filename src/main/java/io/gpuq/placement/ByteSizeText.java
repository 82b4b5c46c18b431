package io.gpuq.placement;

import java.math.BigDecimal;
import java.math.RoundingMode;

/**
 * Byte counts for people: "40 GiB", "15.5 GiB", "512 MiB". Rounds down, so a capacity is never
 * shown larger than it is.
 */
final class ByteSizeText {

  private static final String[] UNITS = {"bytes", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};

  private ByteSizeText() {}

  static String of(long bytes) {
    if (bytes < 1024) {
      return bytes + " bytes";
    }
    int unit = 0;
    long scale = 1;
    while (unit < UNITS.length - 1 && bytes / scale >= 1024) {
      scale *= 1024;
      unit++;
    }
    BigDecimal value =
        BigDecimal.valueOf(bytes)
            .divide(BigDecimal.valueOf(scale), 2, RoundingMode.DOWN)
            .stripTrailingZeros();
    return value.toPlainString() + " " + UNITS[unit];
  }
}
