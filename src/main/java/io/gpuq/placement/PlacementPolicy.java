package io.gpuq.placement;

import java.time.Duration;
import java.util.Objects;

/**
 * How {@link Placer} places. See the class comment of {@link Placer} for the exact rules.
 *
 * @param headroom memory kept free on every GPU
 * @param maxWaitBeforeReservation how long a blocked job may be passed by later, smaller jobs
 *     before it holds back later GPU jobs until it starts; {@link Duration#ZERO} means strict order
 * @param startSpacing least time between two starts on the same GPU; {@link Duration#ZERO} turns
 *     spacing off
 * @param lookahead most GPU jobs (and, separately, most CPU-only jobs) examined per pass
 */
public record PlacementPolicy(
    Headroom headroom, Duration maxWaitBeforeReservation, Duration startSpacing, int lookahead) {

  public PlacementPolicy {
    Objects.requireNonNull(headroom, "headroom");
    Objects.requireNonNull(maxWaitBeforeReservation, "maxWaitBeforeReservation");
    Objects.requireNonNull(startSpacing, "startSpacing");
    if (maxWaitBeforeReservation.isNegative() || startSpacing.isNegative()) {
      throw new IllegalArgumentException("durations must not be negative");
    }
    if (lookahead < 1) {
      throw new IllegalArgumentException("lookahead must be at least 1: " + lookahead);
    }
  }
}
