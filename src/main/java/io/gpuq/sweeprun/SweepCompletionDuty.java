package io.gpuq.sweeprun;

import io.gpuq.duty.PeriodicDuty;
import io.gpuq.sweep.SweepStore;
import java.time.Clock;
import java.time.Duration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Stamps {@code finished_at} on sweeps that are done, whether or not anyone reads them: retention
 * ages a sweep's trials from that stamp. A view of a done sweep stamps it too; this is for the
 * sweeps nobody looks at.
 */
public final class SweepCompletionDuty implements PeriodicDuty {

  private static final Logger log = LoggerFactory.getLogger(SweepCompletionDuty.class);

  private final SweepStore sweeps;
  private final Clock clock;
  private final Duration interval;

  public SweepCompletionDuty(SweepStore sweeps, Clock clock, Duration interval) {
    this.sweeps = sweeps;
    this.clock = clock;
    this.interval = interval;
  }

  @Override
  public String name() {
    return "sweep-completion";
  }

  @Override
  public Duration interval() {
    return interval;
  }

  @Override
  public void runOnce() {
    int stamped = sweeps.stampFinished(clock.instant());
    if (stamped > 0) {
      log.info("{} sweeps are done: every trial has ended", stamped);
    }
  }
}
