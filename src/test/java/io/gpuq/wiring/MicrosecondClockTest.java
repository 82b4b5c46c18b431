package io.gpuq.wiring;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Clock;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import org.junit.jupiter.api.Test;

class MicrosecondClockTest {

  private static final Instant WITH_NANOS = Instant.parse("2026-12-01T04:31:42.381027770Z");

  @Test
  void drops_the_nanoseconds_a_database_would_round() {
    Clock clock = new MicrosecondClock(Clock.fixed(WITH_NANOS, ZoneOffset.UTC));

    assertThat(clock.instant()).isEqualTo(Instant.parse("2026-12-01T04:31:42.381027Z"));
    assertThat(clock.millis()).isEqualTo(WITH_NANOS.toEpochMilli());
  }

  @Test
  void keeps_its_precision_in_another_zone() {
    Clock clock =
        new MicrosecondClock(Clock.fixed(WITH_NANOS, ZoneOffset.UTC))
            .withZone(ZoneId.of("Europe/Paris"));

    assertThat(clock.getZone()).isEqualTo(ZoneId.of("Europe/Paris"));
    assertThat(clock.instant().getNano() % 1_000).isZero();
  }
}
