package io.gpuq.fairshare;

import static org.assertj.core.api.Assertions.assertThat;

import io.gpuq.placement.GpuCapacity;
import io.gpuq.placement.MemoryDemand;
import io.gpuq.placement.PassSimulation;
import io.gpuq.placement.PlacementDecision;
import io.gpuq.placement.PlacementFixtures;
import io.gpuq.placement.PlacementPlan;
import io.gpuq.placement.PlacementRequest;
import io.gpuq.placement.Placer;
import java.time.Duration;
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

  /**
   * Checks every run of consecutive starts, of every length {@code n}, from the very first start
   * (the places filling up included): {@code owner} got between {@code floor(n × part) − 1} and
   * {@code ceil(n × part) + 1} of them.
   */
  static void everyRunGives(List<String> starts, String owner, double part) {
    int[] prefix = new int[starts.size() + 1];
    for (int i = 0; i < starts.size(); i++) {
      prefix[i + 1] = prefix[i] + (starts.get(i).equals(owner) ? 1 : 0);
    }
    for (int from = 0; from < starts.size(); from++) {
      for (int to = from + 1; to <= starts.size(); to++) {
        int n = to - from;
        int count = prefix[to] - prefix[from];
        assertThat(count)
            .as("%s's starts among starts %d to %d of %s", owner, from, to - 1, starts)
            .isBetween((int) Math.floor(n * part) - 1, (int) Math.ceil(n * part) + 1);
      }
    }
  }

  @Property
  @Label("two owners of equal share each get N/2 ± 1 of any N starts")
  void equalSharesSplitEvenly(
      @ForAll @IntRange(min = 1, max = 12) int places,
      @ForAll @IntRange(min = 1, max = 150) int starts) {
    Cluster cluster = new Cluster(places).owner("alice", 1).owner("bob", 1);
    cluster.run(starts);
    for (String owner : List.of("alice", "bob")) {
      everyRunGives(cluster.starts, owner, 0.5);
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
      @ForAll @IntRange(min = 1, max = 150) int starts) {
    Cluster cluster = new Cluster(4 * fours).owner("small", 1).owner("large", 3);
    cluster.run(starts);
    everyRunGives(cluster.starts, "small", 0.25);
    everyRunGives(cluster.starts, "large", 0.75);
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

  /**
   * The same with GPU memory and the real {@link Placer}: the other owners' jobs take different
   * budgets, the newcomer's may need more room than any one job frees. At every pass from their
   * arrival on, the newcomer's job starts if the node's free memory, before the pass, has room for
   * it: no other owner's job takes that room first. (Reservation from the first wait on, so that
   * room is bound to come.)
   */
  @Property
  @Label("an owner who arrives with no usage gets the next place that fits their job")
  void newcomerGetsTheNextPlaceThatFitsTheirJob(
      @ForAll @IntRange(min = 1, max = 4) int gpus,
      @ForAll @IntRange(min = 1, max = 4) int owners,
      @ForAll @IntRange(min = 1, max = 8) int othersEighths,
      @ForAll @IntRange(min = 1, max = 8) int newcomersEighths,
      @ForAll @IntRange(min = 0, max = 40) int warmUp,
      @ForAll @IntRange(min = 1, max = 3) int newcomerShare) {
    long eighth = PlacementFixtures.gib(2);
    List<GpuCapacity> node = PlacementFixtures.emptyNode(gpus, 8 * eighth);
    Placer placer = PlacementFixtures.aPolicy().maxWait(Duration.ZERO).placer();
    Capacity capacity = new Capacity(gpus * 8 * eighth, gpus, 0);
    Map<String, Double> shares = new LinkedHashMap<>();
    Map<String, Long> budgets = new HashMap<>();
    for (int i = 0; i < owners; i++) {
      shares.put("owner" + i, 1.0 + i % 3);
      budgets.put("owner" + i, ((othersEighths + i) % 8 + 1) * eighth);
    }
    Map<String, Integer> startedBy = new HashMap<>();
    Map<String, Double> recent = new HashMap<>();
    // Running jobs, oldest first: each ends after the same run time.
    Deque<PlacementDecision> running = new ArrayDeque<>();
    Map<String, String> ownerOf = new HashMap<>();
    boolean newcomerStarted = false;
    for (int pass = 0; pass < warmUp + 2 * (8 * gpus + 2) && !newcomerStarted; pass++) {
      if (pass == warmUp) {
        // Whoever has run has some recent usage, however little.
        shares.keySet().forEach(owner -> recent.put(owner, 1e-6));
        shares.put("newcomer", (double) newcomerShare);
        budgets.put("newcomer", newcomersEighths * eighth);
      }
      if (pass > 0 && !running.isEmpty()) {
        running.removeFirst();
      }
      List<GpuCapacity> gpusNow = PassSimulation.gpusWith(node, running);
      Map<String, Standing> standings = new HashMap<>();
      Map<String, List<PlacementRequest>> queues = new LinkedHashMap<>();
      for (String owner : shares.keySet()) {
        Held held = Held.NONE;
        for (PlacementDecision d : running) {
          if (ownerOf.get(d.jobId()).equals(owner)) {
            held = held.plus(new Held(d.perGpuBudgetBytes(), 0, 0));
          }
        }
        standings.put(
            owner, new Standing(shares.get(owner), held, recent.getOrDefault(owner, 0.0)));
        int next = startedBy.getOrDefault(owner, 0);
        List<PlacementRequest> queue = new ArrayList<>();
        for (int k = next; k < next + 3; k++) {
          String id = owner + "-" + k;
          ownerOf.put(id, owner);
          queue.add(
              new PlacementRequest(
                  id, 1, new MemoryDemand.Bytes(budgets.get(owner)), 0, k, T0.plusSeconds(k)));
          if (owner.equals("newcomer")) {
            break;
          }
        }
        queues.put(owner, queue);
      }
      boolean newcomerFits =
          shares.containsKey("newcomer")
              && gpusNow.stream()
                  .anyMatch(g -> g.totalBytes() - g.reservedBytes() >= budgets.get("newcomer"));
      PlacementPlan plan =
          placer.plan(gpusNow, 0, new FairShareOrder(capacity, standings, queues), T0);
      for (PlacementDecision d : plan.starts()) {
        running.addLast(d);
        startedBy.merge(ownerOf.get(d.jobId()), 1, Integer::sum);
        newcomerStarted |= d.jobId().startsWith("newcomer");
      }
      if (newcomerFits) {
        assertThat(plan.starts())
            .extracting(PlacementDecision::jobId)
            .as("pass %d: the newcomer's job fits", pass)
            .contains("newcomer-0");
      }
    }
    assertThat(newcomerStarted).as("the newcomer's job started").isTrue();
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
