package io.gpuq.sweep;

import io.gpuq.job.LimitExceededException;

/**
 * An owner asked for another sweep while it already has as many unfinished ones as {@code
 * gpuq.sweeps.max-unfinished-per-owner} allows: each unfinished sweep adds series to the public
 * {@code /actuator/prometheus}, so their number per owner is bounded. Nothing was stored.
 */
public class TooManyUnfinishedSweepsException extends LimitExceededException {

  public TooManyUnfinishedSweepsException(int limit, long unfinished) {
    super(
        "you have "
            + unfinished
            + " unfinished sweeps, and at most "
            + limit
            + " are allowed (gpuq.sweeps.max-unfinished-per-owner): wait for one to finish, or"
            + " cancel one",
        new Figure("limit", limit),
        new Figure("unfinished", unfinished));
  }
}
