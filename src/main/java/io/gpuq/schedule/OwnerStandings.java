package io.gpuq.schedule;

import io.gpuq.fairshare.Held;
import io.gpuq.fairshare.OwnerTerms;
import java.time.Clock;
import java.util.Map;
import java.util.function.Supplier;

/**
 * Reads the owners' figures for {@link OwnersReport}: two queries (what the owners' running jobs
 * hold, the same query a scheduling pass reads; their queued jobs per owner) and the other nodes'
 * capacity from their heartbeats. Recent usage is the figure the passes use, as this node last read
 * it ({@code gpuq.fair-share.account-interval}).
 */
public final class OwnerStandings {

  private final Map<String, OwnerTerms> terms;
  private final OwnerCounts counts;
  private final Supplier<Map<String, Held>> held;
  private final UsageAccounting usage;
  private final Clock clock;

  /**
   * @param terms each configured owner's terms
   * @param held what each owner's running jobs hold over every node ({@code
   *     JobService::heldByOwner})
   * @param usage the duty that keeps the recent usage and knows the cluster's capacity
   */
  public OwnerStandings(
      Map<String, OwnerTerms> terms,
      OwnerCounts counts,
      Supplier<Map<String, Held>> held,
      UsageAccounting usage,
      Clock clock) {
    this.terms = Map.copyOf(terms);
    this.counts = counts;
    this.held = held;
    this.usage = usage;
    this.clock = clock;
  }

  /** Every owner's figures now. */
  public OwnersReport now() {
    return OwnersReport.of(
        clock.instant(),
        terms,
        counts.queuedByOwner(),
        held.get(),
        usage.recentUsage(),
        usage.capacity());
  }
}
