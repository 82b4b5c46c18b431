package io.gpuq.text;

/**
 * Checks on text a user sent, and the short, safe form of it that error messages may quote: an
 * answer never repeats unbounded input, and never holds a lone surrogate that would make it invalid
 * JSON for strict readers such as jq.
 */
public final class UserText {

  /** The most characters of a user's value an error message quotes. */
  public static final int MAX_ECHO = 100;

  private UserText() {}

  /**
   * At most {@value #MAX_ECHO} characters of {@code text}, marked with "…" when cut, with each lone
   * surrogate replaced by U+FFFD.
   */
  public static String echo(String text) {
    if (text == null) {
      return "null";
    }
    int end = text.length();
    boolean cut = false;
    if (end > MAX_ECHO) {
      end = MAX_ECHO;
      // Never cut a pair in two.
      if (Character.isHighSurrogate(text.charAt(end - 1))
          && Character.isLowSurrogate(text.charAt(end))) {
        end--;
      }
      cut = true;
    }
    StringBuilder out = new StringBuilder(end + 1);
    for (int i = 0; i < end; i++) {
      char c = text.charAt(i);
      if (Character.isHighSurrogate(c)
          && i + 1 < text.length()
          && Character.isLowSurrogate(text.charAt(i + 1))) {
        out.append(c).append(text.charAt(++i));
      } else if (Character.isSurrogate(c)) {
        out.append('\uFFFD');
      } else {
        out.append(c);
      }
    }
    return cut ? out.append('…').toString() : out.toString();
  }

  /** Whether {@code text} holds a surrogate that is not half of a pair (not valid Unicode). */
  public static boolean hasLoneSurrogate(String text) {
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      if (Character.isHighSurrogate(c)
          && i + 1 < text.length()
          && Character.isLowSurrogate(text.charAt(i + 1))) {
        i++;
      } else if (Character.isSurrogate(c)) {
        return true;
      }
    }
    return false;
  }

  /**
   * Whether {@code text} holds a control character: C0 (NUL, tab, newline...), DEL or C1, or a
   * bidirectional control ({@link #isBidiControl}).
   */
  public static boolean hasControlCharacter(String text) {
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      if (Character.isISOControl(c) || isBidiControl(c)) {
        return true;
      }
    }
    return false;
  }

  /** Whether {@code text} holds a bidirectional control ({@link #isBidiControl}). */
  public static boolean hasBidiControl(String text) {
    for (int i = 0; i < text.length(); i++) {
      if (isBidiControl(text.charAt(i))) {
        return true;
      }
    }
    return false;
  }

  /**
   * The bidirectional controls: embeddings and overrides (U+202A-202E), isolates (U+2066-2069) and
   * the marks (U+200E, U+200F, U+061C). Invisible, they reorder what follows them on a terminal or
   * a page: a name holding U+202E shows another job's name, or a command read backwards (the
   * "Trojan Source" trick), as ESC could recolour a terminal.
   */
  public static boolean isBidiControl(char c) {
    return (c >= '\u202A' && c <= '\u202E')
        || (c >= '\u2066' && c <= '\u2069')
        || c == '\u200E'
        || c == '\u200F'
        || c == '\u061C';
  }
}
