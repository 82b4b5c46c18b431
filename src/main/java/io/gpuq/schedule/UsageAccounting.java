package io.gpuq.schedule;

import io.gpuq.duty.FixedDelayDuty;
import io.gpuq.fairshare.Capacity;
import io.gpuq.fairshare.Held;
import io.gpuq.fairshare.RecentUsage;
import io.gpuq.job.JobService;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;
import java.util.function.Supplier;

/**
 * Adds what this node's running jobs used since the last run to the shared ledger of recent usage,
 * then reads every owner's figures back for the scheduling passes (which thus read no more than
 * what they read before, and see other nodes' usage one run late at most).
 *
 * <p>An owner's amount is the dominant share, of the whole cluster, of what their jobs hold on this
 * node, times the seconds since the last run: each node adds only its own, so nothing is counted
 * twice. The first run after a start adds nothing: what ran while gpuq was down is not known.
 */
public final class UsageAccounting extends FixedDelayDuty {

  private final JobService jobs;
  private final FairShareInputs fairShare;
  private final Supplier<Capacity> cluster;
  private final String node;
  private final Clock clock;
  private Instant lastRun;
  private volatile Map<String, Double> recent = Map.of();
  private volatile boolean read;

  public UsageAccounting(
      JobService jobs,
      FairShareInputs fairShare,
      Supplier<Capacity> cluster,
      String node,
      Clock clock) {
    super("fair-share usage", fairShare.accountEvery());
    this.jobs = jobs;
    this.fairShare = fairShare;
    this.cluster = cluster;
    this.node = node;
    this.clock = clock;
  }

  @Override
  public synchronized void runOnce() {
    Instant now = clock.instant();
    if (lastRun != null && now.isAfter(lastRun)) {
      double seconds = Duration.between(lastRun, now).toNanos() / 1e9;
      Capacity capacity = cluster.get();
      Map<String, Double> amounts = new HashMap<>();
      for (Map.Entry<String, Held> held : jobs.heldByOwnerOn(node).entrySet()) {
        double share = capacity.dominant(held.getValue()).share();
        if (share > 0) {
          amounts.put(held.getKey(), share * seconds);
        }
      }
      fairShare.ledger().add(amounts, now);
    }
    lastRun = now;
    RecentUsage decay = new RecentUsage(fairShare.halfLife(), now);
    Map<String, Double> averages = new HashMap<>();
    fairShare
        .ledger()
        .decayed(now)
        .forEach((owner, seconds) -> averages.put(owner, decay.average(seconds)));
    recent = Map.copyOf(averages);
    read = true;
  }

  /**
   * Each owner's recent usage as an average dominant share, as of the last run; read from the
   * ledger at the first call if the duty has not run yet, so that a restarted gpuq's first passes
   * (those that start what was queued while it was down) order owners by the stored usage rather
   * than as if nobody had used anything.
   */
  public Map<String, Double> recentUsage() {
    if (!read) {
      runOnce();
    }
    return recent;
  }

  /**
   * The cluster's capacity now, as the scheduling passes measure owners' shares against it (read
   * from the other nodes' heartbeats): for views of the owners that show the same shares.
   */
  public Capacity capacity() {
    return cluster.get();
  }
}
