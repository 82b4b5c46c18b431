package io.gpuq.fairshare;

import java.util.Objects;

/**
 * An owner's standing at the start of a pass.
 *
 * @param share their weight ({@link OwnerTerms#share})
 * @param held what their running jobs hold now, over every node
 * @param recent their recent usage as an average dominant share ({@link RecentUsage#average}): 0.5
 *     means they held half the cluster's dominant resource over about the last half-life
 */
public record Standing(double share, Held held, double recent) {

  public Standing {
    Objects.requireNonNull(held, "held");
    if (!(share > 0)) {
      throw new IllegalArgumentException("share must be positive: " + share);
    }
    if (!(recent >= 0)) {
      recent = 0;
    }
  }

  public static Standing fresh(double share) {
    return new Standing(share, Held.NONE, 0);
  }

  /** The owner's place in fair share, lowest first: {@code (dominant(held) + recent) / share}. */
  public double position(Capacity capacity) {
    return (capacity.dominant(held).share() + recent) / share;
  }

  public Standing holding(Held more) {
    return new Standing(share, held.plus(more), recent);
  }
}
