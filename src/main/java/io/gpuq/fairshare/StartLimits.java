package io.gpuq.fairshare;

import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * The running limits checked again when a pass's starts are claimed, in the claim's transaction,
 * with what every node holds as of then: two nodes that each planned a start for one owner, from
 * the same figures, cannot both take them past a limit. The store locks the owners' rows, reads
 * what they hold, and claims only the starts this allows.
 *
 * <p>The over-share rule ({@link OverShare}, issue 35) is checked again the same way: two nodes
 * starting jobs of one owner from the same figures cannot both take them past their share.
 *
 * @param byOwner the owners' limits; an owner not in it has no running limit here
 * @param starts what each start would hold, by job id
 * @param capacity the cluster's, for the GPUs of jobs that ask for bytes ({@link Held#gpus})
 * @param overShare the over-share rule as the pass applied it
 * @param shares each owner's share, for the over-share rule
 * @param heldBeside what owners hold on the claiming node beside their workers (a warm-start
 *     zygote's cores and memory, issue 36), which the database does not know: added to what it says
 *     they hold
 */
public record StartLimits(
    Map<String, Limits> byOwner,
    Map<String, Start> starts,
    Capacity capacity,
    OverShare overShare,
    Map<String, Double> shares,
    Map<String, Held> heldBeside) {

  /** Nothing to check again. */
  public static final StartLimits NONE = new StartLimits(Map.of(), Map.of(), new Capacity(0, 0, 0));

  /** One start: whose job, and what it holds once started. */
  public record Start(String owner, Held holds) {}

  public StartLimits {
    byOwner = Map.copyOf(byOwner);
    starts = Map.copyOf(starts);
    Objects.requireNonNull(capacity, "capacity");
    Objects.requireNonNull(overShare, "overShare");
    shares = Map.copyOf(shares);
    heldBeside = Map.copyOf(heldBeside);
  }

  /** Nothing held beside the workers. */
  public StartLimits(
      Map<String, Limits> byOwner,
      Map<String, Start> starts,
      Capacity capacity,
      OverShare overShare,
      Map<String, Double> shares) {
    this(byOwner, starts, capacity, overShare, shares, Map.of());
  }

  /** These limits, with what owners hold beside their workers on the claiming node. */
  public StartLimits withHeldBeside(Map<String, Held> beside) {
    return beside.isEmpty()
        ? this
        : new StartLimits(byOwner, starts, capacity, overShare, shares, beside);
  }

  /** The running limits only, without the over-share rule. */
  public StartLimits(Map<String, Limits> byOwner, Map<String, Start> starts, Capacity capacity) {
    this(byOwner, starts, capacity, OverShare.OFF, Map.of(), Map.of());
  }

  /**
   * The owners of these starts with a running limit, or with a start the over-share rule may hold
   * back: the rows a claim locks, and reads.
   */
  public Set<String> limitedOwners() {
    Set<String> owners = new HashSet<>();
    starts.forEach(
        (id, start) -> {
          Limits limits = byOwner.get(start.owner());
          if ((limits != null && limits.limitsRunning()) || overShareApplies(id)) {
            owners.add(start.owner());
          }
        });
    return owners;
  }

  private boolean overShareApplies(String jobId) {
    return overShare.on() && !overShare.preemptible().contains(jobId);
  }

  /**
   * The jobs, of {@code jobIds} in their claim order, that would take their owner past a running
   * limit given what the owners hold now ({@code heldNow}, plus {@link #heldBeside}) and the starts
   * before them that are kept.
   */
  public Set<String> pastLimits(List<String> jobIds, Map<String, Held> heldNow) {
    Map<String, Held> held = new HashMap<>(heldNow);
    heldBeside.forEach((owner, beside) -> held.merge(owner, beside, Held::plus));
    Set<String> past = new HashSet<>();
    for (String id : jobIds) {
      Start start = starts.get(id);
      if (start == null) {
        continue;
      }
      Held before = held.getOrDefault(start.owner(), Held.NONE);
      Limits limits = byOwner.getOrDefault(start.owner(), Limits.DEFAULT);
      if (overShareApplies(id)
          && overShare.holdsBack(
              id,
              new Standing(shares.getOrDefault(start.owner(), 1.0), before, 0),
              start.holds(),
              capacity)) {
        past.add(id);
      } else if (limits.reachedBy(before, start.holds(), capacity).isPresent()) {
        past.add(id);
      } else {
        held.put(start.owner(), before.plus(start.holds()));
      }
    }
    return past;
  }
}
