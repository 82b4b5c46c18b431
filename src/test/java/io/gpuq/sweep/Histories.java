package io.gpuq.sweep;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * Test-data builder for a trial's intermediate values: {@code trial(3).at(1, 0.5, 10)} is trial 3
 * reporting 0.5 at step 1, read by gpuq 10 s after {@link #T0}.
 */
final class Histories {

  static final Instant T0 = Instant.parse("2026-12-01T00:00:00Z");

  private final int trial;
  private boolean completed;
  private final List<Intermediate> values = new ArrayList<>();
  private long clock;

  private Histories(int trial) {
    this.trial = trial;
  }

  static Histories trial(int number) {
    return new Histories(number);
  }

  /** Reports {@code value} at {@code step}, read {@code second} seconds after T0. */
  Histories at(long step, double value, long second) {
    values.add(new Intermediate(step, value, T0.plusSeconds(second)));
    clock = Math.max(clock, second);
    return this;
  }

  /** Reports one value per step from step 0, read one second apart after the last. */
  Histories values(double... perStep) {
    long firstSecond = clock + 1;
    for (int step = 0; step < perStep.length; step++) {
      at(step, perStep[step], firstSecond + step);
    }
    return this;
  }

  Histories completed() {
    completed = true;
    return this;
  }

  TrialHistory build() {
    return new TrialHistory(trial, completed, values);
  }
}
