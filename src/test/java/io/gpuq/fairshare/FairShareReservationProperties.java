package io.gpuq.fairshare;

import static io.gpuq.placement.PlacementFixtures.gib;
import static io.gpuq.placement.PlacementFixtures.mib;
import static org.assertj.core.api.Assertions.assertThat;

import io.gpuq.placement.GpuCapacity;
import io.gpuq.placement.Headroom;
import io.gpuq.placement.MemoryDemand;
import io.gpuq.placement.PlacementDecision;
import io.gpuq.placement.PlacementPlan;
import io.gpuq.placement.PlacementPolicy;
import io.gpuq.placement.PlacementRequest;
import io.gpuq.placement.Placer;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.IntStream;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Label;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.Tuple;

/**
 * The reservation rule of {@link Placer} (no job is overtaken for ever) with the head chosen in
 * fair-share order, over simulated passes: jobs of several owners of different shares arrive, run
 * for their length and end; a pass runs every {@link #TICK} seconds, in the order {@link
 * FairShareOrder} gives from what each owner holds now and their recent usage (kept in an {@link
 * InMemoryUsageLedger}, fed as the usage duty feeds the database).
 *
 * <p>The bound, as {@link Placer} states it: a job that is the first waiting feasible GPU job in
 * the pass's order from instant {@code h} on (in fair-share order: the next job of the owner
 * furthest below their share that could run on this node), and keeps that place, starts by {@code
 * max(h, queuedSince + maxWait) + max(longest run, start spacing)} plus two pass intervals. And
 * every job that could run on the node starts: an owner who passes it raises their own usage by
 * doing so, so the place comes back to it.
 */
class FairShareReservationProperties {

  static final Instant T0 = Instant.parse("2026-12-03T00:00:00Z");
  static final long TICK = 10;

  record SimJob(String owner, PlacementRequest request, long durationSeconds) {}

  record Simulation(
      List<GpuCapacity> gpus,
      Map<String, Double> shares,
      List<SimJob> jobs,
      PlacementPolicy policy,
      Duration halfLife) {

    Capacity capacity() {
      long memory = gpus.stream().mapToLong(GpuCapacity::totalBytes).sum();
      return new Capacity(memory, gpus.size(), 0);
    }
  }

  @Property(tries = 300)
  @Label("the reservation rule's bound holds with the head chosen in fair-share order")
  void theHeadInFairShareOrderStartsWithinTheBound(@ForAll("simulations") Simulation sim) {
    Placer placer = new Placer(sim.policy());
    PlacementPolicy policy = sim.policy();
    Capacity capacity = sim.capacity();
    InMemoryUsageLedger ledger = new InMemoryUsageLedger(sim.halfLife());
    long longestRun = sim.jobs().stream().mapToLong(SimJob::durationSeconds).max().orElse(0);
    long perJob =
        policy.maxWaitBeforeReservation().toSeconds()
            + Math.max(longestRun, policy.startSpacing().toSeconds())
            + 2 * TICK;
    long lastArrival =
        sim.jobs().stream()
            .mapToLong(j -> j.request().queuedSince().getEpochSecond() - T0.getEpochSecond())
            .max()
            .orElse(0);
    long horizon = lastArrival + (sim.jobs().size() + 1) * perJob;
    Map<String, SimJob> byId = new HashMap<>();
    Map<String, Boolean> feasible = new HashMap<>();
    for (SimJob job : sim.jobs()) {
      byId.put(job.request().jobId(), job);
      feasible.put(
          job.request().jobId(), placer.feasibility(job.request(), sim.gpus()).isFeasible());
    }

    Map<String, Long> startedAt = new HashMap<>();
    Map<String, PlacementDecision> running = new LinkedHashMap<>();
    Map<Integer, Instant> lastStart = new HashMap<>();
    String head = null;
    Instant headSince = null;

    for (long t = 0; t <= horizon; t += TICK) {
      Instant now = T0.plusSeconds(t);
      long elapsed = t;
      running
          .keySet()
          .removeIf(id -> startedAt.get(id) + byId.get(id).durationSeconds() <= elapsed);
      List<SimJob> waiting =
          sim.jobs().stream()
              .filter(
                  j ->
                      !j.request().queuedSince().isAfter(now)
                          && !startedAt.containsKey(j.request().jobId()))
              .toList();
      if (running.isEmpty()
          && t > lastArrival
          && waiting.stream().noneMatch(j -> feasible.get(j.request().jobId()))) {
        break;
      }
      Map<String, Standing> standings = standings(sim, capacity, ledger, running, byId, now);
      Map<String, List<PlacementRequest>> queues = queues(sim, waiting);

      // The head: the first feasible GPU job the pass's order names, before anything starts.
      FairShareOrder preview = new FairShareOrder(capacity, standings, queues);
      String headNow = null;
      for (PlacementRequest r = preview.next(); r != null; r = preview.next()) {
        if (feasible.get(r.jobId())) {
          headNow = r.jobId();
          break;
        }
      }
      if (headNow != null && !headNow.equals(head)) {
        headSince = now;
      }
      head = headNow;

      List<GpuCapacity> gpus = gpusNow(sim.gpus(), running.values(), lastStart);
      PlacementPlan plan =
          placer.plan(gpus, 0, new FairShareOrder(capacity, standings, queues), now);
      for (PlacementDecision d : plan.starts()) {
        PlacementRequest r = byId.get(d.jobId()).request();
        assertThat(feasible.get(d.jobId())).as("infeasible %s started", d.jobId()).isTrue();
        startedAt.put(d.jobId(), t);
        running.put(d.jobId(), d);
        d.gpuIndices().forEach(i -> lastStart.put(i, now));
        if (d.jobId().equals(head)) {
          Instant reservedFrom =
              max(headSince, r.queuedSince().plus(policy.maxWaitBeforeReservation()));
          Instant bound =
              reservedFrom
                  .plusSeconds(Math.max(longestRun, policy.startSpacing().toSeconds()))
                  .plusSeconds(2 * TICK);
          assertThat(now)
              .as("start of head %s, head since %s", d.jobId(), headSince)
              .isBeforeOrEqualTo(bound);
        }
      }
      // What ran over the next tick, as the usage duty adds it.
      Map<String, Double> used = new HashMap<>();
      heldByOwner(running, byId)
          .forEach(
              (owner, held) -> used.put(owner, capacity.dominant(held).share() * (double) TICK));
      ledger.add(used, now.plusSeconds(TICK));
    }

    List<String> neverStarted =
        sim.jobs().stream()
            .map(j -> j.request().jobId())
            .filter(id -> feasible.get(id) && !startedAt.containsKey(id))
            .toList();
    assertThat(neverStarted).as("feasible jobs that never started").isEmpty();
  }

  private static Map<String, Held> heldByOwner(
      Map<String, PlacementDecision> running, Map<String, SimJob> byId) {
    Map<String, Held> held = new HashMap<>();
    running.forEach(
        (id, decision) ->
            held.merge(
                byId.get(id).owner(), Held.of(byId.get(id).request(), decision), Held::plus));
    return held;
  }

  private static Map<String, Standing> standings(
      Simulation sim,
      Capacity capacity,
      InMemoryUsageLedger ledger,
      Map<String, PlacementDecision> running,
      Map<String, SimJob> byId,
      Instant now) {
    Map<String, Held> held = heldByOwner(running, byId);
    Map<String, Double> decayed = ledger.decayed(now);
    RecentUsage recent = new RecentUsage(sim.halfLife(), now);
    Map<String, Standing> standings = new HashMap<>();
    sim.shares()
        .forEach(
            (owner, share) ->
                standings.put(
                    owner,
                    new Standing(
                        share,
                        held.getOrDefault(owner, Held.NONE),
                        recent.average(decayed.getOrDefault(owner, 0.0)))));
    return standings;
  }

  /** Each owner's waiting jobs in their own order: priority, then submission. */
  private static Map<String, List<PlacementRequest>> queues(Simulation sim, List<SimJob> waiting) {
    Map<String, List<PlacementRequest>> queues = new LinkedHashMap<>();
    for (String owner : sim.shares().keySet()) {
      List<PlacementRequest> queue =
          new ArrayList<>(
              waiting.stream().filter(j -> j.owner().equals(owner)).map(SimJob::request).toList());
      queue.sort(Placer.QUEUE_ORDER);
      queues.put(owner, queue);
    }
    return queues;
  }

  /** The node as the simulation sees it: processes use exactly their budgets, nothing foreign. */
  private static List<GpuCapacity> gpusNow(
      List<GpuCapacity> node,
      Iterable<PlacementDecision> running,
      Map<Integer, Instant> lastStart) {
    Map<Integer, Long> reserved = new HashMap<>();
    for (PlacementDecision d : running) {
      for (int i : d.gpuIndices()) {
        reserved.merge(i, d.perGpuBudgetBytes(), Long::sum);
      }
    }
    return node.stream()
        .map(
            g -> {
              long r = reserved.getOrDefault(g.index(), 0L);
              return new GpuCapacity(
                  g.index(), g.uuid(), g.totalBytes(), r, r, 0, lastStart.get(g.index()));
            })
        .toList();
  }

  private static Instant max(Instant a, Instant b) {
    return a.isAfter(b) ? a : b;
  }

  // ------------------------------------------------------------- generators

  @Provide
  Arbitrary<Simulation> simulations() {
    Arbitrary<List<GpuCapacity>> node =
        Arbitraries.of(gib(16), gib(24), gib(80))
            .list()
            .ofMinSize(1)
            .ofMaxSize(4)
            .map(
                totals ->
                    IntStream.range(0, totals.size())
                        .mapToObj(i -> new GpuCapacity(i, "GPU-" + i, totals.get(i), 0, 0, 0, null))
                        .toList());
    Arbitrary<Map<String, Double>> shares =
        Arbitraries.integers()
            .between(1, 3)
            .list()
            .ofMinSize(2)
            .ofMaxSize(4)
            .map(
                list -> {
                  Map<String, Double> byOwner = new LinkedHashMap<>();
                  for (int i = 0; i < list.size(); i++) {
                    byOwner.put("owner" + i, (double) list.get(i));
                  }
                  return byOwner;
                });
    Arbitrary<PlacementPolicy> policy =
        Combinators.combine(
                Arbitraries.of(Headroom.NONE, Headroom.ofBytes(gib(1)), Headroom.ofFraction(0.05)),
                Arbitraries.of(0L, 30L, 120L, 300L).map(Duration::ofSeconds),
                Arbitraries.of(0L, 10L, 30L).map(Duration::ofSeconds),
                Arbitraries.integers().between(1, 10))
            .as(PlacementPolicy::new);
    Arbitrary<Duration> halfLife =
        Arbitraries.of(Duration.ofMinutes(1), Duration.ofMinutes(10), Duration.ofDays(1));
    return Combinators.combine(node, shares, policy, halfLife)
        .flatAs(
            (gpus, owners, p, h) ->
                jobs(List.copyOf(owners.keySet()))
                    .map(jobs -> new Simulation(gpus, owners, jobs, p, h)));
  }

  private Arbitrary<List<SimJob>> jobs(List<String> owners) {
    Arbitrary<Integer> gpuCounts =
        Arbitraries.frequencyOf(
            Tuple.of(6, Arbitraries.just(1)),
            Tuple.of(3, Arbitraries.integers().between(2, 4)),
            Tuple.of(1, Arbitraries.integers().between(5, 6)));
    Arbitrary<MemoryDemand> demands =
        Arbitraries.frequencyOf(
            Tuple.of(
                3, Arbitraries.longs().between(mib(256), gib(12)).map(MemoryDemand.Bytes::new)),
            Tuple.of(1, Arbitraries.longs().between(gib(12), gib(90)).map(MemoryDemand.Bytes::new)),
            Tuple.of(
                3,
                Arbitraries.doubles().between(0.05, 1).ofScale(2).map(MemoryDemand.Fraction::new)),
            Tuple.of(2, Arbitraries.just(new MemoryDemand.WholeGpu())));
    Arbitrary<SimJob> job =
        Combinators.combine(
                Arbitraries.of(owners),
                gpuCounts,
                demands,
                Arbitraries.integers().between(0, 2),
                Arbitraries.longs().between(0, 600),
                Arbitraries.longs().between(10, 600))
            .as(
                (owner, gpus, memory, priority, arrival, duration) ->
                    new SimJob(
                        owner,
                        new PlacementRequest(
                            "j", gpus, memory, priority, 0, T0.plusSeconds(arrival)),
                        duration));
    return job.list().ofMinSize(1).ofMaxSize(20).map(FairShareReservationProperties::numbered);
  }

  /** Numbers jobs by arrival: the sequence is the submission order. */
  private static List<SimJob> numbered(List<SimJob> jobs) {
    List<SimJob> sorted =
        jobs.stream().sorted(Comparator.comparing(j -> j.request().queuedSince())).toList();
    return IntStream.range(0, sorted.size())
        .mapToObj(
            i -> {
              SimJob j = sorted.get(i);
              PlacementRequest r = j.request();
              return new SimJob(
                  j.owner(),
                  new PlacementRequest(
                      "job-" + i, r.gpus(), r.memory(), r.priority(), i, r.queuedSince()),
                  j.durationSeconds());
            })
        .toList();
  }
}
