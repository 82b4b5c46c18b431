package io.gpuq.sweep;

import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.Optional;

/**
 * Where a page of a trials table ended: the last row's sort key, its value of the metric (absent
 * when it reported none) and its trial number. Opaque to clients: base64 of {@code value:trial}.
 *
 * @param value the last row's best value, or null (only read by the metric orders)
 */
public record TrialCursor(Double value, int trial) {

  public String encode() {
    String text = (value == null ? "" : Double.toString(value)) + ":" + trial;
    return Base64.getUrlEncoder()
        .withoutPadding()
        .encodeToString(text.getBytes(StandardCharsets.UTF_8));
  }

  /** The cursor this text encodes, or empty when it is not one {@link #encode} wrote. */
  public static Optional<TrialCursor> decode(String text) {
    try {
      String decoded = new String(Base64.getUrlDecoder().decode(text), StandardCharsets.UTF_8);
      int colon = decoded.lastIndexOf(':');
      if (colon < 0 || decoded.length() > 64) {
        return Optional.empty();
      }
      String value = decoded.substring(0, colon);
      int trial = Integer.parseInt(decoded.substring(colon + 1));
      Double parsed = value.isEmpty() ? null : Double.valueOf(value);
      if (trial < 0) {
        return Optional.empty();
      }
      return Optional.of(new TrialCursor(parsed, trial));
    } catch (IllegalArgumentException e) {
      return Optional.empty();
    }
  }
}
