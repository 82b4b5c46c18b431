package io.gpuq.fairshare;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;

class RecentUsageTest {

  static final Instant EPOCH = Instant.parse("2026-01-01T00:00:00Z");
  static final RecentUsage DAY = new RecentUsage(Duration.ofDays(1), EPOCH);

  @Test
  void usageHalvesEveryHalfLifeFromWhenItWasUsed() {
    Instant at = EPOCH.plus(Duration.ofDays(10));
    double scaled = DAY.scaled(3600, at);
    assertThat(DAY.decayed(scaled, at)).isCloseTo(3600, within(1e-6));
    assertThat(DAY.decayed(scaled, at.plus(Duration.ofDays(1)))).isCloseTo(1800, within(1e-6));
    assertThat(DAY.decayed(scaled, at.plus(Duration.ofDays(3)))).isCloseTo(450, within(1e-6));
  }

  @Test
  void sumsOfAdditionsAtDifferentInstantsDecayEachFromItsOwn() {
    Instant first = EPOCH.plus(Duration.ofDays(2));
    Instant second = first.plus(Duration.ofDays(1));
    double sum = DAY.scaled(1000, first) + DAY.scaled(1000, second);
    assertThat(DAY.decayed(sum, second)).isCloseTo(1500, within(1e-6));
  }

  @Test
  void anOwnerWhoAlwaysHeldHalfHasRecentUsageOneHalf() {
    // The decayed integral of 0.5 over all the past is 0.5 × halfLife / ln 2.
    double decayed = 0.5 * 86_400 / Math.log(2);
    assertThat(DAY.average(decayed)).isCloseTo(0.5, within(1e-12));
  }

  @Test
  void aRebaseKeepsTheValueAndShrinksTheScale() {
    Instant late = EPOCH.plus(Duration.ofDays(70));
    assertThat(DAY.needsRebase(late)).isTrue();
    double scaled = DAY.scaled(100, late);
    RecentUsage moved = new RecentUsage(Duration.ofDays(1), late);
    double rebased = scaled * DAY.rebaseFactor(late);
    assertThat(moved.decayed(rebased, late.plusSeconds(86_400))).isCloseTo(50, within(1e-9));
    assertThat(moved.needsRebase(late)).isFalse();
  }
}
