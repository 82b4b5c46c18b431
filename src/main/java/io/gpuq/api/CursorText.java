package io.gpuq.api;

import io.gpuq.job.FieldError;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.List;

/** What a listing's cursor holds, opaque to clients: its text in base64 (URL-safe, unpadded). */
final class CursorText {

  private CursorText() {}

  static String encode(String text) {
    return Base64.getUrlEncoder()
        .withoutPadding()
        .encodeToString(text.getBytes(StandardCharsets.UTF_8));
  }

  /**
   * The text a cursor holds when it matches {@code form} (a regular expression); null, with an
   * error added, when it is not a cursor we wrote.
   */
  static String decode(String cursor, String form, List<FieldError> errors) {
    try {
      String text = new String(Base64.getUrlDecoder().decode(cursor), StandardCharsets.UTF_8);
      if (text.matches(form)) {
        return text;
      }
    } catch (IllegalArgumentException e) {
      // reported below
    }
    errors.add(new FieldError("cursor", "is not a cursor this API returned"));
    return null;
  }
}
