package io.gpuq.notify;

import java.time.Duration;
import java.time.Instant;

/**
 * When a failed delivery is tried again: {@code first} after the first failure, doubling up to
 * {@code max} between tries, and never again once {@code giveUpAfter} has passed since the event.
 */
public record Backoff(Duration first, Duration max, Duration giveUpAfter) {

  public Backoff {
    if (first.isNegative() || first.isZero() || max.compareTo(first) < 0) {
      throw new IllegalArgumentException("the first retry must be positive and at most max");
    }
  }

  /** The wait after the {@code failures}-th failed try (1 for the first). */
  public Duration delayAfter(int failures) {
    Duration delay = first;
    for (int i = 1; i < failures && delay.compareTo(max) < 0; i++) {
      delay = delay.multipliedBy(2);
    }
    return delay.compareTo(max) > 0 ? max : delay;
  }

  /**
   * When to try next after the {@code failures}-th failure at {@code now}, or null: give up (the
   * next try would fall after {@code giveUpAfter} from the event).
   */
  public Instant nextTry(Instant happenedAt, int failures, Instant now) {
    Instant next = now.plus(delayAfter(failures));
    return next.isAfter(happenedAt.plus(giveUpAfter)) ? null : next;
  }
}
