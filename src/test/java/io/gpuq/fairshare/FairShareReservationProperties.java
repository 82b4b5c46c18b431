package io.gpuq.fairshare;

import static io.gpuq.placement.PassSimulation.TICK;
import static io.gpuq.placement.PlacementFixtures.gib;
import static io.gpuq.placement.PlacementFixtures.mib;

import io.gpuq.placement.GpuCapacity;
import io.gpuq.placement.Headroom;
import io.gpuq.placement.MemoryDemand;
import io.gpuq.placement.PassSimulation;
import io.gpuq.placement.PassSimulation.Job;
import io.gpuq.placement.PassSimulation.Pass;
import io.gpuq.placement.PlacementPolicy;
import io.gpuq.placement.PlacementRequest;
import io.gpuq.placement.Placer;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
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
 * for their length and end ({@link PassSimulation}); a pass runs every {@link PassSimulation#TICK}
 * seconds, in the order {@link FairShareOrder} gives from what each owner holds now and their
 * recent usage (kept in an {@link InMemoryUsageLedger}, fed as the usage duty feeds the database).
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

  record Simulation(
      List<GpuCapacity> gpus,
      Map<String, Double> shares,
      List<Job> jobs,
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
    PassSimulation.of(sim.gpus(), sim.jobs())
        .from(T0)
        .feasibleWhen(r -> placer.feasibility(r, sim.gpus()).isFeasible())
        .horizonPerJob(
            longestRun ->
                policy.maxWaitBeforeReservation().toSeconds()
                    + Math.max(longestRun, policy.startSpacing().toSeconds())
                    + 2 * TICK)
        // The head: the first feasible GPU job the pass's order names, before anything starts.
        .reservationBound(
            policy,
            pass -> {
              FairShareOrder preview = order(sim, capacity, ledger, pass);
              for (PlacementRequest r = preview.next(); r != null; r = preview.next()) {
                if (pass.feasible(r.jobId())) {
                  return r.jobId();
                }
              }
              return null;
            })
        // What ran over the next tick, as the usage duty adds it.
        .afterEachPass(
            pass -> {
              Map<String, Double> used = new HashMap<>();
              heldByOwner(pass)
                  .forEach(
                      (owner, held) ->
                          used.put(owner, capacity.dominant(held).share() * (double) TICK));
              ledger.add(used, pass.now().plusSeconds(TICK));
            })
        .run(pass -> placer.plan(pass.gpus(), 0, order(sim, capacity, ledger, pass), pass.now()));
  }

  private static Map<String, Held> heldByOwner(Pass pass) {
    Map<String, Held> held = new HashMap<>();
    pass.running()
        .forEach(
            (id, decision) ->
                held.merge(
                    pass.job(id).owner(), Held.of(pass.job(id).request(), decision), Held::plus));
    return held;
  }

  /** The pass's order: from what each owner holds now and their recent usage. */
  private static FairShareOrder order(
      Simulation sim, Capacity capacity, InMemoryUsageLedger ledger, Pass pass) {
    return new FairShareOrder(capacity, standings(sim, ledger, pass), queues(sim, pass.waiting()));
  }

  private static Map<String, Standing> standings(
      Simulation sim, InMemoryUsageLedger ledger, Pass pass) {
    Map<String, Held> held = heldByOwner(pass);
    Map<String, Double> decayed = ledger.decayed(pass.now());
    RecentUsage recent = new RecentUsage(sim.halfLife(), pass.now());
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
  private static Map<String, List<PlacementRequest>> queues(Simulation sim, List<Job> waiting) {
    Map<String, List<PlacementRequest>> queues = new LinkedHashMap<>();
    for (String owner : sim.shares().keySet()) {
      List<PlacementRequest> queue =
          new ArrayList<>(
              waiting.stream().filter(j -> j.owner().equals(owner)).map(Job::request).toList());
      queue.sort(Placer.QUEUE_ORDER);
      queues.put(owner, queue);
    }
    return queues;
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

  private Arbitrary<List<Job>> jobs(List<String> owners) {
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
    Arbitrary<Job> job =
        Combinators.combine(
                Arbitraries.of(owners),
                gpuCounts,
                demands,
                Arbitraries.integers().between(0, 2),
                Arbitraries.longs().between(0, 600),
                Arbitraries.longs().between(10, 600))
            .as(
                (owner, gpus, memory, priority, arrival, duration) ->
                    new Job(
                        owner,
                        new PlacementRequest(
                            "j", gpus, memory, priority, 0, T0.plusSeconds(arrival)),
                        duration));
    return job.list().ofMinSize(1).ofMaxSize(20).map(PassSimulation::inArrivalOrder);
  }
}
