package io.gpuq.api;

import io.gpuq.job.FieldError;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.List;

/** The cursor of a job's metric series: where the last page ended, opaque to clients (base64). */
final class MetricsCursors {

  private static final String PREFIX = "m:";

  private MetricsCursors() {}

  static String encode(Long after) {
    return after == null
        ? null
        : Base64.getUrlEncoder()
            .withoutPadding()
            .encodeToString((PREFIX + after).getBytes(StandardCharsets.UTF_8));
  }

  /** The position a cursor names, -1 for none; -1, with an error added, for a foreign cursor. */
  static long decode(String cursor, List<FieldError> errors) {
    if (cursor == null) {
      return -1;
    }
    try {
      String text = new String(Base64.getUrlDecoder().decode(cursor), StandardCharsets.UTF_8);
      if (text.matches(PREFIX + "[0-9]{1,18}")) {
        return Long.parseLong(text.substring(PREFIX.length()));
      }
    } catch (IllegalArgumentException e) {
      // reported below
    }
    errors.add(new FieldError("cursor", "is not a cursor this API returned"));
    return -1;
  }
}
