package io.gpuq.api;

import io.gpuq.job.FieldError;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.List;

/** The cursor of a newest-first listing: the last id shown, opaque to clients (base64). */
final class IdCursors {

  private IdCursors() {}

  static String encode(String beforeId) {
    return beforeId == null
        ? null
        : Base64.getUrlEncoder()
            .withoutPadding()
            .encodeToString(beforeId.getBytes(StandardCharsets.UTF_8));
  }

  /** The id a cursor names; null, with an error added, when it is not a cursor we wrote. */
  static String decode(String cursor, List<FieldError> errors) {
    if (cursor == null) {
      return null;
    }
    try {
      String id = new String(Base64.getUrlDecoder().decode(cursor), StandardCharsets.UTF_8);
      if (id.matches("[0-9A-Z]{26}")) {
        return id;
      }
    } catch (IllegalArgumentException e) {
      // reported below
    }
    errors.add(new FieldError("cursor", "is not a cursor this API returned"));
    return null;
  }
}
