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
 * @param byOwner the owners' limits; an owner not in it has no running limit here
 * @param starts what each start would hold, by job id
 * @param capacity the cluster's, for the GPUs of jobs that ask for bytes ({@link Held#gpus})
 */
public record StartLimits(
    Map<String, Limits> byOwner, Map<String, Start> starts, Capacity capacity) {

  /** Nothing to check again. */
  public static final StartLimits NONE = new StartLimits(Map.of(), Map.of(), new Capacity(0, 0, 0));

  /** One start: whose job, and what it holds once started. */
  public record Start(String owner, Held holds) {}

  public StartLimits {
    byOwner = Map.copyOf(byOwner);
    starts = Map.copyOf(starts);
    Objects.requireNonNull(capacity, "capacity");
  }

  /** The owners of these starts with a running limit: the rows a claim locks, and reads. */
  public Set<String> limitedOwners() {
    Set<String> owners = new HashSet<>();
    starts
        .values()
        .forEach(
            start -> {
              Limits limits = byOwner.get(start.owner());
              if (limits != null && limits.limitsRunning()) {
                owners.add(start.owner());
              }
            });
    return owners;
  }

  /**
   * The jobs, of {@code jobIds} in their claim order, that would take their owner past a running
   * limit given what the owners hold now ({@code heldNow}) and the starts before them that are
   * kept.
   */
  public Set<String> pastLimits(List<String> jobIds, Map<String, Held> heldNow) {
    Map<String, Held> held = new HashMap<>(heldNow);
    Set<String> past = new HashSet<>();
    for (String id : jobIds) {
      Start start = starts.get(id);
      if (start == null) {
        continue;
      }
      Held before = held.getOrDefault(start.owner(), Held.NONE);
      Limits limits = byOwner.getOrDefault(start.owner(), Limits.DEFAULT);
      if (limits.reachedBy(before, start.holds(), capacity).isPresent()) {
        past.add(id);
      } else {
        held.put(start.owner(), before.plus(start.holds()));
      }
    }
    return past;
  }
}
