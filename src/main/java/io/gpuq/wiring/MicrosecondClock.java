package io.gpuq.wiring;

import java.time.Clock;
import java.time.Instant;
import java.time.ZoneId;
import java.time.temporal.ChronoUnit;

/**
 * The system clock in whole microseconds, the precision both databases keep: a time in an answer is
 * the one read back later, not one the database rounded. Not {@code Clock.tick(clock, 1 µs)}: on
 * Java 17 its {@code millis()} divides by zero for ticks under a millisecond.
 */
final class MicrosecondClock extends Clock {

  private final Clock clock;

  MicrosecondClock(Clock clock) {
    this.clock = clock;
  }

  @Override
  public ZoneId getZone() {
    return clock.getZone();
  }

  @Override
  public Clock withZone(ZoneId zone) {
    return new MicrosecondClock(clock.withZone(zone));
  }

  @Override
  public Instant instant() {
    return clock.instant().truncatedTo(ChronoUnit.MICROS);
  }

  @Override
  public long millis() {
    return clock.millis();
  }
}
