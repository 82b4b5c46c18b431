package io.gpuq.fairshare;

import static org.assertj.core.api.Assertions.assertThat;

import io.gpuq.placement.MemoryDemand;
import io.gpuq.placement.PlacementDecision;
import io.gpuq.placement.PlacementRequest;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import net.jqwik.api.ForAll;
import net.jqwik.api.Label;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;

/**
 * Properties of the pure ordering, in a simple model of a cluster: {@code places} equal places (CPU
 * slots here; any resource behaves the same), every job takes one and all run equally long, so they
 * end in the order they started. Each owner is always backlogged with the same jobs: their k-th job
 * queued at instant k. Whenever a place frees, one pass of {@link FairShareOrder} gives it to the
 * first job it names.
 */
class FairShareProperties {

  static final Instant T0 = Instant.parse("2026-12-03T00:00:00Z");

  /** The model: who runs, oldest first, and how many jobs each owner has started. */
  static final class Cluster {
    final int places;
    final Capacity capacity;
    final Map<String, Double> shares = new LinkedHashMap<>();
    final Map<String, Double> recent = new HashMap<>();
    final Map<String, Integer> startedBy = new HashMap<>();
    final Deque<String> running = new ArrayDeque<>();
    final List<String> starts = new ArrayList<>();

    Cluster(int places) {
      this.places = places;
      this.capacity = new Capacity(0, 0, places);
    }

    Cluster owner(String name, double share) {
      shares.put(name, share);
      return this;
    }

    /** One pass over a freed place: returns the owner whose job started. */
    String startOne() {
      Map<String, Standing> standings = new HashMap<>();
      Map<String, List<PlacementRequest>> queues = new LinkedHashMap<>();
      shares.forEach(
          (owner, share) -> {
            long held = running.stream().filter(owner::equals).count();
            standings.put(
                owner, new Standing(share, new Held(0, 0, held), recent.getOrDefault(owner, 0.0)));
            int next = startedBy.getOrDefault(owner, 0);
            List<PlacementRequest> queue = new ArrayList<>();
            for (int k = next; k < next + 3; k++) {
              queue.add(
                  new PlacementRequest(
                      owner + "-" + k, 0, MemoryDemand.wholeGpu(), 0, k, T0.plusSeconds(k)));
            }
            queues.put(owner, queue);
          });
      FairShareOrder order = new FairShareOrder(capacity, standings, queues);
      PlacementRequest first = order.next();
      order.started(first, PlacementDecision.cpuOnly(first.jobId()));
      String owner = order.ownerOf(first.jobId());
      startedBy.merge(owner, 1, Integer::sum);
      running.addLast(owner);
      starts.add(owner);
      return owner;
    }

    /** Fills the free places, then runs {@code n} more starts, each after the oldest job ends. */
    List<String> run(int n) {
      while (running.size() < places) {
        startOne();
      }
      int before = starts.size();
      for (int i = 0; i < n; i++) {
        running.removeFirst();
        startOne();
      }
      return starts.subList(before, starts.size());
    }
  }

  /** The largest and smallest count of {@code owner} over every window of {@code n} starts. */
  static int[] windowCounts(List<String> starts, String owner, int n) {
    int min = Integer.MAX_VALUE;
    int max = Integer.MIN_VALUE;
    for (int from = 0; from + n <= starts.size(); from++) {
      int count = 0;
      for (int i = from; i < from + n; i++) {
        count += starts.get(i).equals(owner) ? 1 : 0;
      }
      min = Math.min(min, count);
      max = Math.max(max, count);
    }
    return new int[] {min, max};
  }

  @Property
  @Label("two owners of equal share each get N/2 ± 1 of any N starts")
  void equalSharesSplitEvenly(
      @ForAll @IntRange(min = 1, max = 12) int places,
      @ForAll @IntRange(min = 1, max = 60) int n,
      @ForAll @IntRange(min = 0, max = 60) int warmUp) {
    Cluster cluster = new Cluster(places).owner("alice", 1).owner("bob", 1);
    cluster.run(warmUp);
    List<String> starts = cluster.run(n + 40);
    for (String owner : List.of("alice", "bob")) {
      int[] counts = windowCounts(starts, owner, n);
      assertThat(counts[0]).isGreaterThanOrEqualTo((int) Math.floor(n / 2.0) - 1);
      assertThat(counts[1]).isLessThanOrEqualTo((int) Math.ceil(n / 2.0) + 1);
    }
  }

  /**
   * Held usage counts in whole places, so a share of 1 in 4 is exact only where the places divide
   * by 4; recent usage smooths the rest in gpuq itself.
   */
  @Property
  @Label("with shares 1:3 the smaller gets N/4 ± 1 of any N starts")
  void sharesOneToThree(
      @ForAll @IntRange(min = 1, max = 4) int fours,
      @ForAll @IntRange(min = 1, max = 60) int n,
      @ForAll @IntRange(min = 0, max = 60) int warmUp) {
    Cluster cluster = new Cluster(4 * fours).owner("small", 1).owner("large", 3);
    cluster.run(warmUp);
    List<String> starts = cluster.run(n + 40);
    int[] counts = windowCounts(starts, "small", n);
    assertThat(counts[0]).isGreaterThanOrEqualTo((int) Math.floor(n / 4.0) - 1);
    assertThat(counts[1]).isLessThanOrEqualTo((int) Math.ceil(n / 4.0) + 1);
  }

  @Property
  @Label("an owner who arrives with no usage gets the next place")
  void newcomerGetsTheNextPlace(
      @ForAll @IntRange(min = 1, max = 12) int places,
      @ForAll @IntRange(min = 1, max = 4) int owners,
      @ForAll @IntRange(min = 0, max = 60) int warmUp,
      @ForAll @IntRange(min = 1, max = 3) int newcomerShare) {
    Cluster cluster = new Cluster(places);
    for (int i = 0; i < owners; i++) {
      cluster.owner("owner" + i, 1 + i % 3);
    }
    cluster.run(warmUp);
    // Whoever has run has some recent usage, however little.
    cluster.shares.keySet().forEach(owner -> cluster.recent.put(owner, 1e-6));
    cluster.owner("newcomer", newcomerShare);
    assertThat(cluster.run(1)).containsExactly("newcomer");
  }

  @Property
  @Label("a start never goes to an owner further above their share than another with jobs")
  void theStartGoesToTheLowestPosition(
      @ForAll @IntRange(min = 1, max = 10) int places,
      @ForAll @IntRange(min = 0, max = 40) int warmUp) {
    Cluster cluster = new Cluster(places).owner("a", 1).owner("b", 2).owner("c", 1);
    cluster.run(warmUp);
    cluster.running.removeFirst();
    Map<String, Double> positions = new HashMap<>();
    cluster.shares.forEach(
        (owner, share) ->
            positions.put(
                owner,
                new Standing(
                        share,
                        new Held(0, 0, cluster.running.stream().filter(owner::equals).count()),
                        0)
                    .position(cluster.capacity)));
    String chosen = cluster.startOne();
    double lowest = positions.values().stream().mapToDouble(d -> d).min().orElseThrow();
    assertThat(positions.get(chosen)).isLessThanOrEqualTo(lowest + 1e-9);
  }
}
