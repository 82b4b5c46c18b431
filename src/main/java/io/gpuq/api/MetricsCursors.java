package io.gpuq.api;

import io.gpuq.job.FieldError;
import java.util.List;

/** The cursor of a job's metric series: where the last page ended, opaque to clients (base64). */
final class MetricsCursors {

  private static final String PREFIX = "m:";

  private MetricsCursors() {}

  static String encode(Long after) {
    return after == null ? null : CursorText.encode(PREFIX + after);
  }

  /** The position a cursor names, -1 for none; -1, with an error added, for a foreign cursor. */
  static long decode(String cursor, List<FieldError> errors) {
    if (cursor == null) {
      return -1;
    }
    String text = CursorText.decode(cursor, PREFIX + "[0-9]{1,18}", errors);
    return text == null ? -1 : Long.parseLong(text.substring(PREFIX.length()));
  }
}
