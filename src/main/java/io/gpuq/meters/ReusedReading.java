package io.gpuq.meters;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One reading from the database that several gauges share: taken at most once per {@code maxAge},
 * so that a scrape costs one query however many gauges it reads. A reading that fails is logged and
 * is null (the gauges show NaN) until the next is due: a database that cannot answer is not asked
 * again at every gauge.
 */
final class ReusedReading<T> {

  private static final Logger log = LoggerFactory.getLogger(ReusedReading.class);

  private final String what;
  private final Supplier<T> source;
  private final Clock clock;
  private final Duration maxAge;
  private T last;
  private Instant readAt;

  /**
   * @param what what is read, for the log ("jobs per state")
   */
  ReusedReading(String what, Supplier<T> source, Clock clock, Duration maxAge) {
    this.what = what;
    this.source = source;
    this.clock = clock;
    this.maxAge = maxAge;
  }

  /** The latest reading, taken now if the last is older than {@code maxAge}; null if it failed. */
  synchronized T get() {
    Instant now = clock.instant();
    // A clock set back makes the last reading due as well.
    if (readAt == null || !now.isBefore(readAt.plus(maxAge)) || now.isBefore(readAt)) {
      try {
        last = source.get();
      } catch (RuntimeException e) {
        log.warn("cannot read {} for the metrics: {}", what, e.toString());
        last = null;
      }
      readAt = now;
    }
    return last;
  }
}
