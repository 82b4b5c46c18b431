package io.gpuq.api;

import io.gpuq.job.InvalidJobRequestException;
import java.net.URI;
import org.springframework.http.ResponseEntity;

/** The {@code Idempotency-Key} header as jobs and sweeps accept it. */
final class IdempotencyKeys {

  static final int MAX_LENGTH = 200;

  private IdempotencyKeys() {}

  /**
   * @throws InvalidJobRequestException unless the key is absent or 1 to {@value #MAX_LENGTH}
   *     printable ASCII characters
   */
  static void check(String key) {
    if (key != null
        && (key.isBlank()
            || key.length() > MAX_LENGTH
            || !key.chars().allMatch(c -> c >= 0x20 && c <= 0x7e))) {
      throw new InvalidJobRequestException(
          "Idempotency-Key", "must be 1 to " + MAX_LENGTH + " printable ASCII characters");
    }
  }

  /**
   * The answer to an idempotent POST: 201 with a Location for the request that created {@code
   * body}, 200 for a repeat with the same key, which created nothing.
   */
  static <T> ResponseEntity<T> answer(boolean created, T body, String location) {
    if (!created) {
      return ResponseEntity.ok(body);
    }
    return ResponseEntity.created(URI.create(location)).body(body);
  }
}
