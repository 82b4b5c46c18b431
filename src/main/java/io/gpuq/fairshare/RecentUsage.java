package io.gpuq.fairshare;

import java.time.Duration;
import java.time.Instant;
import java.util.Objects;

/**
 * Recent usage, decayed with a half-life, in a form that several nodes can add to without reading
 * each other's figures: usage of {@code a} dominant-share-seconds at instant {@code t} is stored as
 * {@code a × 2^((t − epoch) / halfLife)} (its <em>scaled</em> amount), so that a store of sums read
 * at {@code now} is worth {@code sum × 2^(−(now − epoch) / halfLife)}: each addition decays from
 * its own instant on, however many nodes added what, and whenever. The scale grows by one bit a
 * half-life; {@link #needsRebase} says when to move the epoch before doubles lose range.
 *
 * @param epoch the fixed instant the scale counts from
 */
public record RecentUsage(Duration halfLife, Instant epoch) {

  /** Past this exponent the scale (2^64, about 10^19) is moved to a later epoch. */
  static final double REBASE_EXPONENT = 64;

  public RecentUsage {
    Objects.requireNonNull(halfLife, "halfLife");
    Objects.requireNonNull(epoch, "epoch");
    if (halfLife.isNegative() || halfLife.isZero()) {
      throw new IllegalArgumentException("half-life must be positive: " + halfLife);
    }
  }

  /** The scale of an amount added at {@code at}: {@code 2^((at − epoch) / halfLife)}. */
  public double scaleAt(Instant at) {
    return Math.pow(2, exponent(at));
  }

  /** What {@code dominantShareSeconds} used at {@code at} adds to an owner's scaled sum. */
  public double scaled(double dominantShareSeconds, Instant at) {
    return dominantShareSeconds * scaleAt(at);
  }

  /** A scaled sum read at {@code now}: decayed dominant-share-seconds. */
  public double decayed(double scaledSum, Instant now) {
    return scaledSum / scaleAt(now);
  }

  /**
   * Decayed dominant-share-seconds as an average dominant share: divided by the mean life {@code
   * halfLife / ln 2}, the decayed length of all the past. An owner who held a dominant share {@code
   * d} for ever has recent usage {@code d}; for one half-life, {@code d / 2}.
   */
  public double average(double decayedSeconds) {
    return decayedSeconds * Math.log(2) / seconds(halfLife);
  }

  /** Whether the scale at {@code now} has grown enough to move the epoch to {@code now}. */
  public boolean needsRebase(Instant now) {
    return exponent(now) > REBASE_EXPONENT;
  }

  /** The same usage counted from {@code newEpoch}: multiply every scaled sum by this factor. */
  public double rebaseFactor(Instant newEpoch) {
    return 1 / scaleAt(newEpoch);
  }

  private double exponent(Instant at) {
    return seconds(Duration.between(epoch, at)) / seconds(halfLife);
  }

  private static double seconds(Duration duration) {
    return duration.getSeconds() + duration.getNano() / 1e9;
  }
}
