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

  /** Whether {@code text} holds a control character: C0 (NUL, tab, newline...), DEL or C1. */
  public static boolean hasControlCharacter(String text) {
    for (int i = 0; i < text.length(); i++) {
      if (Character.isISOControl(text.charAt(i))) {
        return true;
      }
    }
    return false;
  }
}
