package io.gpuq.fairshare;

import java.util.Set;

/**
 * The operator's rule {@code gpuq.preemption.over-share-requires-preemptible} (issue 35): a job
 * that may not be preempted starts only while its owner stays within their share; above it only
 * preemptible jobs start, on capacity no one below their share is using (and which preemption can
 * give back). So fair share holds for long runs: whatever an owner runs beyond their share can be
 * reclaimed.
 *
 * <p>An owner's share here is their part of the cluster among the owners who run or wait: {@code
 * share / totalShares}. They stay within it while their dominant share of what they hold now, with
 * the most the job can hold, is no more than that.
 *
 * @param on whether the rule holds
 * @param preemptible the jobs of the pass that may be preempted, which the rule lets through
 * @param totalShares the shares of the owners who run or wait, added up
 */
public record OverShare(boolean on, Set<String> preemptible, double totalShares) {

  /** The rule's key, as a running limit names it ({@link Limits.Reached#key}). */
  public static final String KEY = "over-share-requires-preemptible";

  /** The reason a job held back by the rule gives. */
  public static final String REASON = "over your share; preemptible jobs may use idle GPUs";

  /** The rule does not hold: today's behaviour. */
  public static final OverShare OFF = new OverShare(false, Set.of(), 1);

  private static final double SLACK = 1e-9;

  public OverShare {
    preemptible = Set.copyOf(preemptible);
    if (on && !(totalShares > 0)) {
      throw new IllegalArgumentException("total shares must be positive: " + totalShares);
    }
  }

  /**
   * Whether the rule holds this job back: it may not be preempted, and with {@code more} (the most
   * it can hold) its owner would hold more than their share.
   */
  public boolean holdsBack(String jobId, Standing standing, Held more, Capacity capacity) {
    if (!on || preemptible.contains(jobId)) {
      return false;
    }
    double after = capacity.dominant(standing.held().plus(more)).share();
    return after > standing.share() / totalShares + SLACK;
  }

  /** The hold the rule puts on a job, as a running limit's is given. */
  static Limits.Reached reached() {
    return new Limits.Reached(KEY, 0);
  }
}
