package io.gpuq.api;

import io.gpuq.job.FieldError;
import java.util.List;

/** The cursor of a newest-first listing: the last id shown, opaque to clients (base64). */
final class IdCursors {

  private IdCursors() {}

  static String encode(String beforeId) {
    return beforeId == null ? null : CursorText.encode(beforeId);
  }

  /** The id a cursor names; null, with an error added, when it is not a cursor we wrote. */
  static String decode(String cursor, List<FieldError> errors) {
    return cursor == null ? null : CursorText.decode(cursor, "[0-9A-Z]{26}", errors);
  }
}
