package io.gpuq.api;

import io.gpuq.job.InvalidJobRequestException;

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
}
