package io.gpuq.text;

import java.math.BigDecimal;
import java.math.RoundingMode;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Memory sizes as users write them, a number of bytes or a number with a unit: parsed from requests
 * and configuration, and formatted for messages (the one byte formatter of gpuq).
 *
 * <p>{@code K M G T}, {@code Ki Mi Gi Ti} and {@code KiB MiB GiB TiB} are binary (1024-based), as
 * in {@code java -Xmx6G} and {@code docker --memory 6g}, because GPU memory is reported in binary
 * units; {@code KB MB GB TB} are decimal, as the SI says. A plain {@code B} suffix is bytes.
 */
public final class MemorySize {

  /** Longer text is refused before it is parsed: "1048576 TiB" is 11 characters. */
  public static final int MAX_TEXT_LENGTH = 32;

  private static final Pattern SIZE = Pattern.compile("\\s*(\\d+(?:\\.\\d+)?)\\s*([A-Za-z]*)\\s*");
  private static final long KIB = 1024L;
  private static final Map<String, Long> UNITS =
      Map.ofEntries(
          Map.entry("", 1L),
          Map.entry("b", 1L),
          Map.entry("k", KIB),
          Map.entry("ki", KIB),
          Map.entry("kib", KIB),
          Map.entry("m", KIB * KIB),
          Map.entry("mi", KIB * KIB),
          Map.entry("mib", KIB * KIB),
          Map.entry("g", KIB * KIB * KIB),
          Map.entry("gi", KIB * KIB * KIB),
          Map.entry("gib", KIB * KIB * KIB),
          Map.entry("t", KIB * KIB * KIB * KIB),
          Map.entry("ti", KIB * KIB * KIB * KIB),
          Map.entry("tib", KIB * KIB * KIB * KIB),
          Map.entry("kb", 1000L),
          Map.entry("mb", 1000L * 1000),
          Map.entry("gb", 1000L * 1000 * 1000),
          Map.entry("tb", 1000L * 1000 * 1000 * 1000));

  private static final String[] FORMAT_UNITS = {"B", "KiB", "MiB", "GiB", "TiB"};

  private MemorySize() {}

  /**
   * Bytes for a size given as a JSON number or string.
   *
   * @throws IllegalArgumentException with a message fit for the user when it is not a size
   */
  public static long parse(Object value) {
    if (value instanceof Number number) {
      return fromNumber(number);
    }
    if (value instanceof String text) {
      return fromText(text);
    }
    throw new IllegalArgumentException(
        "must be a number of bytes or a string such as \"512MiB\", \"6GiB\" or \"6G\"");
  }

  private static long fromNumber(Number number) {
    if ((number instanceof Double d && !Double.isFinite(d))
        || (number instanceof Float f && !Float.isFinite(f))) {
      throw new IllegalArgumentException("is too large");
    }
    BigDecimal bytes = new BigDecimal(number.toString());
    if (bytes.signum() <= 0) {
      throw new IllegalArgumentException("must be more than 0 bytes");
    }
    if (bytes.stripTrailingZeros().scale() > 0) {
      throw new IllegalArgumentException("a number of bytes must be a whole number");
    }
    if (bytes.compareTo(BigDecimal.valueOf(Long.MAX_VALUE)) > 0) {
      throw new IllegalArgumentException("is too large");
    }
    return bytes.longValueExact();
  }

  private static long fromText(String text) {
    if (text.length() > MAX_TEXT_LENGTH) {
      throw new IllegalArgumentException(
          "must be at most "
              + MAX_TEXT_LENGTH
              + " characters, such as \"512MiB\", \"6GiB\" or \"6G\"");
    }
    Matcher m = SIZE.matcher(text);
    if (!m.matches()) {
      throw new IllegalArgumentException(
          "\""
              + UserText.echo(text)
              + "\" is not a memory size such as \"512MiB\", \"6GiB\" or \"6G\"");
    }
    Long unit = UNITS.get(m.group(2).toLowerCase(Locale.ROOT));
    if (unit == null) {
      throw new IllegalArgumentException(
          "unknown unit \""
              + m.group(2)
              + "\" in \""
              + text
              + "\": use B, KiB, MiB, GiB, TiB (or K, M, G, T), or KB, MB, GB, TB");
    }
    BigDecimal bytes =
        new BigDecimal(m.group(1))
            .multiply(BigDecimal.valueOf(unit))
            .setScale(0, RoundingMode.FLOOR);
    if (bytes.signum() <= 0) {
      throw new IllegalArgumentException("must be more than 0 bytes");
    }
    try {
      return bytes.longValueExact();
    } catch (ArithmeticException e) {
      throw new IllegalArgumentException("\"" + text + "\" is too large");
    }
  }

  /**
   * A size as people write it, such as {@code 6GiB}, {@code 1.5GiB} or {@code 512B}, and as {@link
   * #parse} reads it back: binary units, at most two decimals, rounded down, so that a size (a free
   * capacity, a budget) is never shown larger than it is.
   */
  public static String format(long bytes) {
    if (bytes < KIB) {
      return bytes + "B";
    }
    int unit = 0;
    long scale = 1;
    while (unit < FORMAT_UNITS.length - 1 && bytes / scale >= KIB) {
      scale *= KIB;
      unit++;
    }
    BigDecimal value =
        BigDecimal.valueOf(bytes)
            .divide(BigDecimal.valueOf(scale), 2, RoundingMode.DOWN)
            .stripTrailingZeros();
    return value.toPlainString() + FORMAT_UNITS[unit];
  }
}
