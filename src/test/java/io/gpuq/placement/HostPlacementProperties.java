package io.gpuq.placement;

import static io.gpuq.placement.PassSimulation.TICK;
import static io.gpuq.placement.PlacementFixtures.gib;
import static io.gpuq.placement.PlacementFixtures.mib;
import static io.gpuq.placement.PlacementFixtures.numbered;
import static org.assertj.core.api.Assertions.assertThat;

import io.gpuq.placement.PassSimulation.Job;
import io.gpuq.text.Cpus;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
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
 * Properties of placement by cores and host memory beside the GPUs (issue 27): over one pass and
 * over a sequence of passes, starts and ends, a node's cores and host memory are never
 * over-committed, and a job gets its GPUs, its cores and its memory all at once or nothing.
 *
 * <p>The node's books are kept here, from the decisions alone, independently of {@link Placer}'s.
 */
class HostPlacementProperties {

  private static final Instant NOW = PlacementFixtures.NOW;

  record Pass(
      List<GpuCapacity> gpus,
      int freeCpuSlots,
      HostCapacity host,
      List<PlacementRequest> queue,
      PlacementPolicy policy) {

    PlacementPlan plan() {
      return new Placer(policy).plan(gpus, freeCpuSlots, host, queue, NOW);
    }

    Map<String, PlacementRequest> byId() {
      return queue.stream().collect(Collectors.toMap(PlacementRequest::jobId, r -> r));
    }
  }

  // ---------------------------------------------------------------- one pass

  @Property
  @Label("one pass starts no more cores and host memory than are free, and reports what is left")
  void onePassNeverOvercommits(@ForAll("passes") Pass p) {
    PlacementPlan plan = p.plan();
    Map<String, PlacementRequest> byId = p.byId();

    long cores = plan.starts().stream().mapToLong(d -> byId.get(d.jobId()).cpus().millis()).sum();
    long memory =
        plan.starts().stream().mapToLong(d -> byId.get(d.jobId()).hostMemoryBytes()).sum();

    assertThat(cores).isLessThanOrEqualTo(p.host().freeCpus().millis());
    assertThat(memory).isLessThanOrEqualTo(p.host().freeMemoryBytes());
    assertThat(plan.freeCpus().millis()).isEqualTo(p.host().freeCpus().millis() - cores);
    assertThat(plan.freeMemoryBytes()).isEqualTo(p.host().freeMemoryBytes() - memory);
  }

  @Property
  @Label("a started job gets all its GPUs, distinct; a waiting one is told the true shortage")
  void gangsGetEverythingOrNothing(@ForAll("passes") Pass p) {
    PlacementPlan plan = p.plan();
    Map<String, PlacementRequest> byId = p.byId();

    for (PlacementDecision d : plan.starts()) {
      PlacementRequest r = byId.get(d.jobId());
      assertThat(d.gpuIndices()).hasSize(r.gpus()).doesNotHaveDuplicates();
      assertThat(r.cpus()).isLessThanOrEqualTo(p.host().allocatable());
    }
    plan.waits()
        .forEach(
            (id, wait) -> {
              PlacementRequest r = byId.get(id);
              if (wait instanceof Wait.NoCores cores) {
                assertThat(cores.cpus()).isEqualTo(r.cpus());
                assertThat(cores.free()).isLessThan(r.cpus());
              }
              if (wait instanceof Wait.NoHostMemory memory) {
                assertThat(memory.bytes()).isEqualTo(r.hostMemoryBytes());
                assertThat(memory.free()).isLessThan(r.hostMemoryBytes()).isNotNegative();
              }
            });
  }

  @Property
  @Label("a job is feasible exactly when it starts alone on the emptied node, cores and memory too")
  void feasibleMeansItStartsOnTheEmptiedNode(@ForAll("passes") Pass p) {
    Placer placer = new Placer(p.policy());
    HostCapacity emptiedHost =
        HostCapacity.empty(p.host().allocatableCpus(), p.host().allocatableMemoryBytes());
    List<GpuCapacity> emptiedGpus =
        p.gpus().stream()
            .map(g -> new GpuCapacity(g.index(), g.uuid(), g.totalBytes(), 0, 0, 0, null))
            .toList();

    for (PlacementRequest r : p.queue()) {
      boolean feasible = placer.feasibility(r, p.gpus(), p.host()).isFeasible();
      boolean starts =
          !placer.plan(emptiedGpus, 1, emptiedHost, List.of(r), NOW).starts().isEmpty();
      assertThat(starts).as("%s", r).isEqualTo(feasible);
      if (r.cpus().compareTo(p.host().allocatable()) > 0
          || r.hostMemoryBytes() > p.host().allocatableMemoryBytes()) {
        assertThat(feasible).isFalse();
      }
    }
  }

  // ------------------------------------------------------------ many passes

  record Simulation(
      List<GpuCapacity> gpus,
      int cpuSlots,
      int allocatableCpus,
      long allocatableMemory,
      List<Job> jobs,
      PlacementPolicy policy) {}

  /**
   * Jobs arrive, run for their duration and end; a pass runs every {@link PassSimulation#TICK}
   * seconds on the node as the simulation's own books leave it. After every pass no GPU, no core
   * and no byte of host memory is given twice, and every job feasible on the node starts in the
   * end: the reservation keeps large jobs from being passed by small ones forever, by cores and
   * memory too.
   */
  @Property(tries = 300)
  @Label("over passes, starts and ends nothing is over-committed and every feasible job starts")
  void manyPassesNeverOvercommitNorStarve(@ForAll("simulations") Simulation sim) {
    Placer placer = new Placer(sim.policy());
    HostCapacity empty = HostCapacity.empty(sim.allocatableCpus(), sim.allocatableMemory());
    PassSimulation.of(sim.gpus(), sim.jobs())
        .cpuSlots(sim.cpuSlots())
        .feasibleWhen(r -> placer.feasibility(r, sim.gpus(), empty).isFeasible())
        .horizonPerJob(
            longestRun ->
                sim.policy().maxWaitBeforeReservation().toSeconds()
                    + 2 * longestRun
                    + 30
                    + 3 * TICK)
        .eachStart(
            (pass, d) -> assertThat(d.gpuIndices()).hasSize(pass.job(d.jobId()).request().gpus()))
        .afterEachPass(pass -> assertNothingOvercommitted(sim, pass))
        .run(
            pass ->
                placer.plan(
                    pass.gpus(),
                    pass.freeCpuSlots(),
                    hostNow(sim, pass),
                    pass.waitingRequests(),
                    pass.now()));
  }

  /** The host with the running jobs' cores and memory taken. */
  private static HostCapacity hostNow(Simulation sim, PassSimulation.Pass pass) {
    Cpus takenCpus = Cpus.ZERO;
    long takenMemory = 0;
    for (String id : pass.running().keySet()) {
      takenCpus = takenCpus.plus(pass.job(id).request().cpus());
      takenMemory += pass.job(id).request().hostMemoryBytes();
    }
    return new HostCapacity(sim.allocatableCpus(), sim.allocatableMemory(), takenCpus, takenMemory);
  }

  private static void assertNothingOvercommitted(Simulation sim, PassSimulation.Pass pass) {
    long cores = 0;
    long memory = 0;
    int cpuOnly = 0;
    Map<Integer, Long> budgets = new HashMap<>();
    for (PlacementDecision d : pass.running().values()) {
      PlacementRequest r = pass.job(d.jobId()).request();
      cores += r.cpus().millis();
      memory += r.hostMemoryBytes();
      cpuOnly += d.isCpuOnly() ? 1 : 0;
      d.gpuIndices().forEach(i -> budgets.merge(i, d.perGpuBudgetBytes(), Long::sum));
    }
    assertThat(cores).as("millicores given").isLessThanOrEqualTo(sim.allocatableCpus() * 1000L);
    assertThat(memory).as("host memory given").isLessThanOrEqualTo(sim.allocatableMemory());
    assertThat(cpuOnly).as("CPU-only jobs").isLessThanOrEqualTo(sim.cpuSlots());
    for (GpuCapacity g : sim.gpus()) {
      long schedulable = g.totalBytes() - sim.policy().headroom().bytesOf(g.totalBytes());
      assertThat(budgets.getOrDefault(g.index(), 0L))
          .as("budgets on GPU %d", g.index())
          .isLessThanOrEqualTo(schedulable);
    }
  }

  // ------------------------------------------------------------- generators

  @Provide
  Arbitrary<Pass> passes() {
    Arbitrary<HostCapacity> hosts =
        Combinators.combine(
                Arbitraries.integers().between(1, 16),
                Arbitraries.longs().between(gib(1), gib(64)),
                Arbitraries.doubles().between(0, 1.1),
                Arbitraries.doubles().between(0, 1.1))
            .as(
                (cpus, memory, cpuShare, memoryShare) ->
                    new HostCapacity(
                        cpus,
                        memory,
                        Cpus.ofMillis((long) (cpus * 1000 * cpuShare)),
                        (long) (memory * memoryShare)));
    return Combinators.combine(
            node(), Arbitraries.integers().between(0, 6), hosts, queues(), policies())
        .as(Pass::new);
  }

  private Arbitrary<List<GpuCapacity>> node() {
    Arbitrary<GpuCapacity> gpu =
        Combinators.combine(
                Arbitraries.of(gib(16), gib(24), gib(80)), Arbitraries.doubles().between(0, 1))
            .as(
                (total, share) -> {
                  long reserved = share < 0.4 ? 0 : (long) (share * total);
                  return new GpuCapacity(0, "GPU", total, reserved, reserved, 0, null);
                });
    return gpu.list().ofMaxSize(4).map(gpus -> numbered(gpus, i -> i));
  }

  private Arbitrary<PlacementRequest> requests() {
    Arbitrary<Integer> gpus =
        Arbitraries.frequencyOf(
            Tuple.of(4, Arbitraries.just(0)),
            Tuple.of(4, Arbitraries.just(1)),
            Tuple.of(2, Arbitraries.integers().between(2, 4)));
    Arbitrary<MemoryDemand> gpuMemory =
        Arbitraries.oneOf(
            Arbitraries.longs().between(mib(512), gib(20)).map(MemoryDemand.Bytes::new),
            Arbitraries.doubles().between(0.05, 1).ofScale(2).map(MemoryDemand.Fraction::new),
            Arbitraries.just(new MemoryDemand.WholeGpu()));
    // Whole cores and fractions (0.01 to 3.5, in thousandths), as jobs ask for them.
    Arbitrary<Cpus> cpus =
        Arbitraries.frequencyOf(
            Tuple.of(5, Arbitraries.just(Cpus.ONE)),
            Tuple.of(4, Arbitraries.integers().between(2, 8).map(Cpus::of)),
            Tuple.of(1, Arbitraries.integers().between(9, 20).map(Cpus::of)),
            Tuple.of(4, Arbitraries.longs().between(10, 3500).map(Cpus::ofMillis)));
    Arbitrary<Long> hostMemory =
        Arbitraries.frequencyOf(
            Tuple.of(4, Arbitraries.just(0L)),
            Tuple.of(5, Arbitraries.longs().between(mib(256), gib(24))),
            Tuple.of(1, Arbitraries.longs().between(gib(24), gib(80))));
    Arbitrary<Instant> queuedSince = Arbitraries.longs().between(0, 7200).map(NOW::minusSeconds);
    return Combinators.combine(
            gpus, gpuMemory, Arbitraries.integers().between(0, 2), queuedSince, cpus, hostMemory)
        .as(
            (g, memory, priority, since, c, host) ->
                new PlacementRequest("j", g, memory, priority, 0, since, c, host));
  }

  private Arbitrary<List<PlacementRequest>> queues() {
    return requests().list().ofMaxSize(20).map(HostPlacementProperties::numberedRequests);
  }

  private static List<PlacementRequest> numberedRequests(List<PlacementRequest> rs) {
    return IntStream.range(0, rs.size()).mapToObj(i -> renamed(rs.get(i), i, null)).toList();
  }

  private static PlacementRequest renamed(PlacementRequest r, int i, Instant queuedSince) {
    return new PlacementRequest(
        "job-" + i,
        r.gpus(),
        r.memory(),
        r.priority(),
        i,
        queuedSince != null ? queuedSince : r.queuedSince(),
        r.cpus(),
        r.hostMemoryBytes());
  }

  private Arbitrary<PlacementPolicy> policies() {
    return Combinators.combine(
            Arbitraries.of(Headroom.NONE, Headroom.ofFraction(0.05)),
            Arbitraries.of(0L, 60L, 600L).map(Duration::ofSeconds),
            Arbitraries.of(0L, 10L).map(Duration::ofSeconds),
            Arbitraries.integers().between(1, 20))
        .as(PlacementPolicy::new);
  }

  @Provide
  Arbitrary<Simulation> simulations() {
    Arbitrary<Job> job =
        Combinators.combine(
                requests(),
                Arbitraries.longs().between(0, 600),
                Arbitraries.longs().between(10, 600))
            .as(
                (r, arrival, duration) ->
                    new Job(renamed(r, 0, NOW.plusSeconds(arrival)), duration));
    Arbitrary<List<Job>> jobs =
        job.list().ofMinSize(1).ofMaxSize(20).map(PassSimulation::inArrivalOrder);
    return Combinators.combine(
            node(),
            Arbitraries.integers().between(1, 8),
            Arbitraries.integers().between(1, 16),
            Arbitraries.longs().between(gib(1), gib(64)),
            jobs,
            policies())
        .as(
            (gpus, slots, cpus, memory, js, policy) ->
                new Simulation(emptied(gpus), slots, cpus, memory, js, policy));
  }

  private static List<GpuCapacity> emptied(List<GpuCapacity> gpus) {
    return gpus.stream()
        .map(g -> new GpuCapacity(g.index(), g.uuid(), g.totalBytes(), 0, 0, 0, null))
        .toList();
  }
}
