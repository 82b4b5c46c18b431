package io.gpuq.retention;

import io.gpuq.duty.FixedDelayDuty;
import io.gpuq.job.UsageSource;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps the usage report's daily roll-up (issue 37) up to {@link #LAG} ago, so that a report over a
 * month reads a few rows per day, not every job: each run moves the roll-up's mark on by at most
 * {@link #STEP} a transaction, {@link #CHUNKS} transactions a run (a first run over a long history
 * catches up over several runs). The lag leaves time for ends written with a slightly older
 * timestamp (a commit in flight, another node's clock a little behind) to be committed before their
 * time is rolled up; an end committed later than that (a node's clock further behind, a retry after
 * a full disk) is added by {@link UsageSource#rollUpLate} at the end of each run, up to six hours
 * before the mark.
 */
public final class UsageRollUpDuty extends FixedDelayDuty {

  static final Duration LAG = Duration.ofMinutes(2);
  static final Duration STEP = Duration.ofHours(6);
  static final int CHUNKS = 8;

  private static final Logger log = LoggerFactory.getLogger(UsageRollUpDuty.class);

  private final UsageSource usage;
  private final Clock clock;

  public UsageRollUpDuty(UsageSource usage, Duration interval, Clock clock) {
    super("usage-roll-up", interval);
    this.usage = usage;
    this.clock = clock;
  }

  @Override
  public void runOnce() {
    Instant target = clock.instant().minus(LAG);
    Instant before = null;
    Instant mark = null;
    for (int i = 0; i < CHUNKS; i++) {
      Instant moved = usage.rollUpTo(target, STEP);
      if (before == null) {
        before = moved;
      }
      if (moved.equals(mark) || !moved.isBefore(target)) {
        mark = moved;
        break;
      }
      mark = moved;
    }
    if (mark != null && mark.isBefore(target.minus(STEP))) {
      log.info("usage roll-up: caught up to {}, {} behind", mark, Duration.between(mark, target));
    }
    int late = usage.rollUpLate();
    if (late > 0) {
      log.info("usage roll-up: added {} ends stored after the roll-up had passed their time", late);
    }
  }
}
