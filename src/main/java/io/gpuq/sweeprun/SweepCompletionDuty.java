package io.gpuq.sweeprun;

import io.gpuq.duty.FixedDelayDuty;
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
public final class SweepCompletionDuty extends FixedDelayDuty {

  private static final Logger log = LoggerFactory.getLogger(SweepCompletionDuty.class);

  private final SweepStore sweeps;
  private final Clock clock;

  public SweepCompletionDuty(SweepStore sweeps, Clock clock, Duration interval) {
    super("sweep-completion", interval);
    this.sweeps = sweeps;
    this.clock = clock;
  }

  @Override
  public void runOnce() {
    int stamped = sweeps.stampFinished(clock.instant());
    if (stamped > 0) {
      log.info("{} sweeps are done: every trial has ended", stamped);
    }
  }
}
