package io.gpuq.warm;

import io.gpuq.duty.FixedDelayDuty;
import java.time.Duration;
import java.util.function.Predicate;

/**
 * Retires the zygotes of sweeps that have ended (done or cancelled), so that a sweep's imported
 * modules do not hold memory for {@code gpuq.warm.idle-exit} after it. The trials they forked, if
 * any still run, keep their zygote until they end.
 */
public final class ZygoteRetirement extends FixedDelayDuty {

  private final WarmStarts warmStarts;
  private final Predicate<String> sweepEnded;

  public ZygoteRetirement(WarmStarts warmStarts, Predicate<String> sweepEnded, Duration interval) {
    super("warm-zygote-retirement", interval);
    this.warmStarts = warmStarts;
    this.sweepEnded = sweepEnded;
  }

  @Override
  public void runOnce() {
    warmStarts.retireEnded(sweepEnded);
    warmStarts.groups().removeEmpty();
    warmStarts.recordFailedStarts();
  }
}
