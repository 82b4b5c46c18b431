package io.gpuq.placement;

import static io.gpuq.placement.PassSimulation.TICK;
import static io.gpuq.placement.PlacementFixtures.gib;
import static io.gpuq.placement.PlacementFixtures.mib;
import static io.gpuq.placement.PlacementFixtures.numbered;
import static org.assertj.core.api.Assertions.assertThat;

import io.gpuq.placement.PassSimulation.Job;
import java.time.Duration;
import java.time.Instant;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;
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
 * Properties of one placement pass over random nodes (sizes, reservations, measured and foreign
 * use, recent starts), queues and policies, and of a simulated sequence of passes.
 *
 * <p>The memory arithmetic here is written out from the rules of the issue, independently of {@link
 * Placer}'s own bookkeeping.
 */
class PlacerProperties {

  private static final Instant NOW = PlacementFixtures.NOW;

  record Scenario(
      List<GpuCapacity> gpus,
      int freeCpuSlots,
      List<PlacementRequest> queue,
      PlacementPolicy policy) {

    PlacementPlan plan() {
      return new Placer(policy).plan(gpus, freeCpuSlots, queue, NOW);
    }

    Map<String, PlacementRequest> byId() {
      return queue.stream().collect(Collectors.toMap(PlacementRequest::jobId, r -> r));
    }

    GpuCapacity gpu(int index) {
      return gpus.stream().filter(g -> g.index() == index).findFirst().orElseThrow();
    }

    long headroom(GpuCapacity g) {
      return policy.headroom().bytesOf(g.totalBytes());
    }

    long schedulable(GpuCapacity g) {
      return Math.max(0, g.totalBytes() - headroom(g));
    }

    long used(GpuCapacity g) {
      return Math.max(g.reservedBytes() + g.foreignUsedBytes(), g.measuredUsedBytes());
    }

    long available(GpuCapacity g) {
      return Math.max(0, schedulable(g) - used(g));
    }

    boolean wholeFree(GpuCapacity g) {
      return g.reservedBytes() == 0 && used(g) <= headroom(g);
    }

    boolean spacedAtStart(GpuCapacity g) {
      Duration spacing = policy.startSpacing();
      return !spacing.isZero()
          && g.lastStartAt() != null
          && g.lastStartAt().plus(spacing).isAfter(NOW);
    }

    boolean feasible(PlacementRequest r) {
      return new Placer(policy).feasibility(r, gpus).isFeasible();
    }

    long budgetOn(PlacementRequest r, GpuCapacity g) {
      if (r.memory() instanceof MemoryDemand.Bytes b) {
        return b.bytes();
      }
      if (r.memory() instanceof MemoryDemand.Fraction f) {
        return (long) Math.floor(f.fraction() * schedulable(g));
      }
      return schedulable(g);
    }

    /** GPU jobs in queue order that a pass examines: feasible ones, at most lookahead. */
    List<PlacementRequest> gpuWindow() {
      return queue.stream()
          .sorted(Placer.QUEUE_ORDER)
          .filter(r -> !r.isCpuOnly() && feasible(r))
          .limit(policy.lookahead())
          .toList();
    }
  }

  // ---------------------------------------------------------------- one pass

  @Property
  @Label("capacity is never exceeded")
  void capacityIsNeverExceeded(@ForAll("scenarios") Scenario s) {
    PlacementPlan plan = s.plan();
    Map<String, PlacementRequest> byId = s.byId();

    for (GpuCapacity g : s.gpus()) {
      List<PlacementDecision> here =
          plan.starts().stream().filter(d -> d.gpuIndices().contains(g.index())).toList();
      long newBudgets = here.stream().mapToLong(PlacementDecision::perGpuBudgetBytes).sum();
      boolean wholeGpuJobHere =
          here.stream()
              .anyMatch(d -> byId.get(d.jobId()).memory() instanceof MemoryDemand.WholeGpu);

      if (newBudgets > 0) {
        assertThat(g.reservedBytes() + newBudgets).isLessThanOrEqualTo(s.schedulable(g));
        assertThat(newBudgets).isLessThanOrEqualTo(g.totalBytes() - g.measuredUsedBytes());
      }
      if (wholeGpuJobHere) {
        assertThat(here).hasSize(1);
        assertThat(s.wholeFree(g)).isTrue();
      } else {
        assertThat(newBudgets).isLessThanOrEqualTo(s.available(g));
      }
    }
  }

  @Property
  @Label("gangs get all their GPUs, distinct, or nothing; budgets follow the demand")
  void gangsAreAllOrNothing(@ForAll("scenarios") Scenario s) {
    PlacementPlan plan = s.plan();
    Map<String, PlacementRequest> byId = s.byId();
    Set<Integer> nodeIndices =
        s.gpus().stream().map(GpuCapacity::index).collect(Collectors.toSet());

    assertThat(plan.starts()).extracting(PlacementDecision::jobId).doesNotHaveDuplicates();
    for (PlacementDecision d : plan.starts()) {
      PlacementRequest r = byId.get(d.jobId());
      assertThat(r).isNotNull();
      assertThat(d.gpuIndices()).hasSize(r.gpus()).doesNotHaveDuplicates().isSorted();
      assertThat(nodeIndices).containsAll(d.gpuIndices());
      long expectedBudget =
          d.gpuIndices().stream().mapToLong(i -> s.budgetOn(r, s.gpu(i))).min().orElse(0);
      assertThat(d.perGpuBudgetBytes()).isEqualTo(expectedBudget);
      if (!r.isCpuOnly()) {
        assertThat(d.perGpuBudgetBytes()).isPositive();
      }
    }
  }

  @Property
  @Label("a GPU held by start spacing takes nothing; with spacing one start per GPU per pass")
  void startSpacingIsKept(@ForAll("scenarios") Scenario s) {
    PlacementPlan plan = s.plan();
    Duration spacing = s.policy().startSpacing();
    List<Integer> used = plan.starts().stream().flatMap(d -> d.gpuIndices().stream()).toList();

    for (int index : used) {
      assertThat(s.spacedAtStart(s.gpu(index))).isFalse();
    }
    if (!spacing.isZero()) {
      assertThat(used).doesNotHaveDuplicates();
    }
    plan.retryAt()
        .ifPresent(at -> assertThat(at).isAfter(NOW).isBeforeOrEqualTo(NOW.plus(spacing)));
  }

  @Property
  @Label("retryAt is the earliest instant start spacing stops holding back a waiting job")
  void retryAtNamesTheEarliestSpacedGpuThatHeldAJobBack(@ForAll("scenarios") Scenario s) {
    PlacementPlan plan = s.plan();
    Map<String, PlacementDecision> started = startsById(plan);
    Residual residual = new Residual(s);
    Instant expected = null;

    for (PlacementRequest r : s.gpuWindow()) {
      PlacementDecision d = started.get(r.jobId());
      if (d != null) {
        residual.apply(r, d);
        continue;
      }
      Instant heldUntil = residual.heldBySpacingUntil(r);
      if (heldUntil != null && (expected == null || heldUntil.isBefore(expected))) {
        expected = heldUntil;
      }
      if (residual.reservesFor(r)) {
        break;
      }
    }

    assertThat(plan.retryAt()).isEqualTo(Optional.ofNullable(expected));
  }

  /**
   * The greedy rule seen from outside: a GPU job in the examined window that did not start, and is
   * not behind a reservation, could not have started on what the starts ordered before it left. In
   * particular no started job took a place a higher-priority job could have used.
   */
  @Property
  @Label("priority is respected: no waiting job ahead of a reservation could have started")
  void noWaitingJobCouldHaveStarted(@ForAll("scenarios") Scenario s) {
    PlacementPlan plan = s.plan();
    Map<String, PlacementDecision> started = startsById(plan);
    Residual residual = new Residual(s);

    for (PlacementRequest r : s.gpuWindow()) {
      PlacementDecision d = started.get(r.jobId());
      if (d != null) {
        residual.apply(r, d);
        continue;
      }
      assertThat(residual.fits(r)).as("%s could have started", r).isFalse();
      if (residual.reservesFor(r)) {
        return;
      }
    }
  }

  @Property
  @Label("a reservation holds back every later GPU job, and nothing outside the window starts")
  void reservationAndWindowHoldBackLaterJobs(@ForAll("scenarios") Scenario s) {
    PlacementPlan plan = s.plan();
    Map<String, PlacementDecision> started = startsById(plan);
    Residual residual = new Residual(s);
    List<PlacementRequest> window = s.gpuWindow();

    Set<String> mayStart = new HashSet<>();
    for (PlacementRequest r : window) {
      mayStart.add(r.jobId());
      PlacementDecision d = started.get(r.jobId());
      if (d != null) {
        residual.apply(r, d);
      } else if (residual.reservesFor(r)) {
        break;
      }
    }
    Set<String> gpuStarts =
        plan.starts().stream()
            .filter(d -> !d.isCpuOnly())
            .map(PlacementDecision::jobId)
            .collect(Collectors.toSet());
    assertThat(mayStart).containsAll(gpuStarts);
  }

  @Property
  @Label("CPU-only jobs fill the free slots in queue order")
  void cpuOnlyJobsFillSlotsInOrder(@ForAll("scenarios") Scenario s) {
    List<String> expected =
        s.queue().stream()
            .filter(PlacementRequest::isCpuOnly)
            .sorted(Placer.QUEUE_ORDER)
            .limit(Math.min(s.freeCpuSlots(), s.policy().lookahead()))
            .map(PlacementRequest::jobId)
            .toList();

    List<String> startedCpuOnly =
        s.plan().starts().stream()
            .filter(PlacementDecision::isCpuOnly)
            .map(PlacementDecision::jobId)
            .toList();

    assertThat(startedCpuOnly).isEqualTo(expected);
  }

  @Property
  @Label("a request is feasible exactly when it starts alone on the emptied node")
  void feasibleMeansItStartsOnAnEmptyNode(
      @ForAll("gpuLists") List<GpuCapacity> gpus,
      @ForAll("requests") PlacementRequest request,
      @ForAll("headrooms") Headroom headroom) {
    Placer placer = new Placer(new PlacementPolicy(headroom, Duration.ZERO, Duration.ZERO, 1));
    List<GpuCapacity> emptied =
        gpus.stream()
            .map(g -> new GpuCapacity(g.index(), g.uuid(), g.totalBytes(), 0, 0, 0, null))
            .toList();

    boolean feasible = placer.feasibility(request, gpus).isFeasible();
    boolean starts = !placer.plan(emptied, 1, List.of(request), NOW).starts().isEmpty();

    assertThat(starts).isEqualTo(feasible);
  }

  @Property
  @Label("impossible requests are refused with a reason and never placed")
  void impossibleRequestsAreRefused(@ForAll("scenarios") Scenario s) {
    Placer placer = new Placer(s.policy());
    long largest = s.gpus().stream().mapToLong(s::schedulable).max().orElse(0);
    Set<String> started = startsById(s.plan()).keySet();

    for (PlacementRequest r : s.queue()) {
      boolean impossible =
          r.gpus() > s.gpus().size()
              || (r.gpus() > 0
                  && r.memory() instanceof MemoryDemand.Bytes b
                  && (b.bytes() <= 0 || b.bytes() > largest))
              || (r.gpus() > 0
                  && r.memory() instanceof MemoryDemand.Fraction f
                  && !(f.fraction() > 0 && f.fraction() <= 1));
      Feasibility feasibility = placer.feasibility(r, s.gpus());
      if (impossible) {
        assertThat(feasibility).isInstanceOf(Feasibility.Infeasible.class);
        assertThat(((Feasibility.Infeasible) feasibility).reason()).startsWith("asks for");
      }
      if (!feasibility.isFeasible()) {
        assertThat(started).doesNotContain(r.jobId());
      }
    }
  }

  // ------------------------------------------------------------ many passes

  record Simulation(List<GpuCapacity> gpus, int cpuSlots, List<Job> jobs, PlacementPolicy policy) {}

  /**
   * Jobs arrive, run for their duration and end; a pass runs every {@link PassSimulation#TICK}
   * seconds. Every job feasible on the node starts; a job that is the first waiting GPU job in the
   * order from instant h on starts by max(h, queuedSince + maxWait) + max(longest run, spacing) + 2
   * ticks.
   */
  @Property(tries = 300)
  @Label("no starvation: every feasible job starts, the first waiting one within the bound")
  void noStarvation(@ForAll("simulations") Simulation sim) {
    Placer placer = new Placer(sim.policy());
    PlacementPolicy policy = sim.policy();
    PassSimulation.of(sim.gpus(), sim.jobs())
        .cpuSlots(sim.cpuSlots())
        .feasibleWhen(r -> placer.feasibility(r, sim.gpus()).isFeasible())
        .horizonPerJob(
            longestRun ->
                policy.maxWaitBeforeReservation().toSeconds() + longestRun + 30 + 2 * TICK)
        .reservationBound(
            policy,
            pass ->
                pass.waitingRequests().stream()
                    .filter(r -> !r.isCpuOnly() && pass.feasible(r.jobId()))
                    .min(Placer.QUEUE_ORDER)
                    .map(PlacementRequest::jobId)
                    .orElse(null))
        .run(
            pass ->
                placer.plan(pass.gpus(), pass.freeCpuSlots(), pass.waitingRequests(), pass.now()));
  }

  private static Map<String, PlacementDecision> startsById(PlacementPlan plan) {
    return plan.starts().stream()
        .collect(Collectors.toMap(PlacementDecision::jobId, Function.identity()));
  }

  /** What the starts ordered before a job leave of the node, per the rules of the issue. */
  private static final class Residual {
    private final Scenario s;
    private final Map<Integer, Long> available = new HashMap<>();
    private final Map<Integer, Boolean> wholeFree = new HashMap<>();
    private final Map<Integer, Instant> spacedUntil = new HashMap<>();
    private boolean headSeen;

    Residual(Scenario s) {
      this.s = s;
      for (GpuCapacity g : s.gpus()) {
        available.put(g.index(), s.available(g));
        wholeFree.put(g.index(), s.wholeFree(g));
        if (s.spacedAtStart(g)) {
          spacedUntil.put(g.index(), g.lastStartAt().plus(s.policy().startSpacing()));
        }
      }
    }

    void apply(PlacementRequest r, PlacementDecision d) {
      boolean whole = r.memory() instanceof MemoryDemand.WholeGpu;
      for (int i : d.gpuIndices()) {
        available.put(i, whole ? 0 : available.get(i) - d.perGpuBudgetBytes());
        wholeFree.put(i, false);
        if (!s.policy().startSpacing().isZero()) {
          spacedUntil.put(i, NOW.plus(s.policy().startSpacing()));
        }
      }
    }

    private boolean hasRoom(PlacementRequest r, GpuCapacity g) {
      return r.memory() instanceof MemoryDemand.WholeGpu
          ? wholeFree.get(g.index()) && s.schedulable(g) > 0
          : s.budgetOn(r, g) >= 1 && s.budgetOn(r, g) <= available.get(g.index());
    }

    boolean fits(PlacementRequest r) {
      long fitting =
          s.gpus().stream()
              .filter(g -> !spacedUntil.containsKey(g.index()) && hasRoom(r, g))
              .count();
      return fitting >= r.gpus();
    }

    /**
     * For a job that does not fit now but would if spacing were ignored: the earliest instant one
     * of the spaced GPUs with room for it becomes eligible. Null otherwise.
     */
    Instant heldBySpacingUntil(PlacementRequest r) {
      if (fits(r)) {
        return null;
      }
      List<GpuCapacity> withRoom = s.gpus().stream().filter(g -> hasRoom(r, g)).toList();
      if (withRoom.size() < r.gpus()) {
        return null;
      }
      return withRoom.stream()
          .map(g -> spacedUntil.get(g.index()))
          .filter(Objects::nonNull)
          .min(Comparator.naturalOrder())
          .orElse(null);
    }

    /**
     * Called for each waiting job in order: whether it is the first one that could start once
     * gpuq's jobs drained and has waited maxWait, so that nothing after it may start.
     */
    boolean reservesFor(PlacementRequest r) {
      if (headSeen) {
        return false;
      }
      long fittingOnceDrained =
          s.gpus().stream()
              .filter(
                  g ->
                      r.memory() instanceof MemoryDemand.WholeGpu
                          ? g.foreignUsedBytes() <= s.headroom(g) && s.schedulable(g) > 0
                          : s.budgetOn(r, g) >= 1
                              && s.budgetOn(r, g) <= s.schedulable(g) - g.foreignUsedBytes())
              .count();
      if (fittingOnceDrained < r.gpus()) {
        return false;
      }
      headSeen = true;
      return !r.queuedSince().plus(s.policy().maxWaitBeforeReservation()).isAfter(NOW);
    }
  }

  // ------------------------------------------------------------- generators

  @Provide
  Arbitrary<Scenario> scenarios() {
    return Combinators.combine(
            gpuLists(), Arbitraries.integers().between(0, 4), queues(), policies())
        .as(Scenario::new);
  }

  @Provide
  Arbitrary<List<GpuCapacity>> gpuLists() {
    return Arbitraries.frequencyOf(
            Tuple.of(1, gpus().list().ofMaxSize(2)), Tuple.of(2, gpus().list().ofMaxSize(8)))
        .map(gpus -> numbered(gpus, i -> i * 2 + 1));
  }

  private Arbitrary<GpuCapacity> gpus() {
    Arbitrary<Long> totals = Arbitraries.of(gib(8), gib(16), gib(24), gib(40), gib(80));
    Arbitrary<Double> shares = Arbitraries.doubles().between(0, 1).edgeCases(c -> c.add(0.0));
    Arbitrary<Instant> lastStarts =
        Arbitraries.longs().between(0, 120).map(NOW::minusSeconds).injectNull(0.4);
    return Combinators.combine(totals, shares, shares, shares, lastStarts)
        .as(
            (total, reservedShare, foreignShare, measuredShare, lastStart) -> {
              long reserved = reservedShare < 0.3 ? 0 : (long) (reservedShare * total);
              long foreign = foreignShare < 0.5 ? 0 : (long) ((foreignShare - 0.5) * 1.2 * total);
              // measured use may lag (jobs below budget) or exceed (jobs above budget)
              long measured =
                  Math.min(total, (long) ((reserved + foreign) * (0.5 + measuredShare * 0.7)));
              return new GpuCapacity(0, "GPU", total, reserved, measured, foreign, lastStart);
            });
  }

  @Provide
  Arbitrary<List<PlacementRequest>> queues() {
    return requests()
        .list()
        .ofMaxSize(25)
        .map(
            rs ->
                IntStream.range(0, rs.size())
                    .mapToObj(
                        i -> {
                          PlacementRequest r = rs.get(i);
                          return new PlacementRequest(
                              "job-" + i, r.gpus(), r.memory(), r.priority(), i, r.queuedSince());
                        })
                    .toList());
  }

  @Provide
  Arbitrary<PlacementRequest> requests() {
    Arbitrary<Integer> gpuCounts =
        Arbitraries.frequencyOf(
            Tuple.of(2, Arbitraries.just(0)),
            Tuple.of(6, Arbitraries.just(1)),
            Tuple.of(3, Arbitraries.integers().between(2, 4)),
            Tuple.of(1, Arbitraries.integers().between(5, 10)));
    Arbitrary<Instant> queuedSince = Arbitraries.longs().between(0, 7200).map(NOW::minusSeconds);
    return Combinators.combine(
            gpuCounts, demands(), Arbitraries.integers().between(0, 2), queuedSince)
        .as(
            (gpus, memory, priority, since) ->
                new PlacementRequest("j", gpus, memory, priority, 0, since));
  }

  private Arbitrary<MemoryDemand> demands() {
    Arbitrary<MemoryDemand> bytes =
        Arbitraries.longs().between(mib(1), gib(90)).map(MemoryDemand.Bytes::new);
    Arbitrary<MemoryDemand> smallBytes =
        Arbitraries.longs().between(mib(256), gib(12)).map(MemoryDemand.Bytes::new);
    Arbitrary<MemoryDemand> fractions =
        Arbitraries.doubles().between(0.0001, 1).ofScale(4).map(MemoryDemand.Fraction::new);
    Arbitrary<MemoryDemand> invalid =
        Arbitraries.of(
            new MemoryDemand.Fraction(0),
            new MemoryDemand.Fraction(1.5),
            new MemoryDemand.Fraction(Double.NaN),
            new MemoryDemand.Bytes(0),
            new MemoryDemand.Bytes(-1));
    return Arbitraries.frequencyOf(
        Tuple.of(3, smallBytes),
        Tuple.of(1, bytes),
        Tuple.of(3, fractions),
        Tuple.of(2, Arbitraries.just(new MemoryDemand.WholeGpu())),
        Tuple.of(1, invalid));
  }

  @Provide
  Arbitrary<Headroom> headrooms() {
    return Arbitraries.oneOf(
        Arbitraries.just(Headroom.NONE),
        Arbitraries.longs().between(0, gib(2)).map(Headroom::ofBytes),
        Arbitraries.doubles().between(0, 0.2).map(Headroom::ofFraction),
        Combinators.combine(
                Arbitraries.longs().between(0, gib(2)), Arbitraries.doubles().between(0, 0.2))
            .as(Headroom::new));
  }

  private Arbitrary<PlacementPolicy> policies() {
    return Combinators.combine(
            headrooms(),
            Arbitraries.of(0L, 60L, 600L, 3600L).map(Duration::ofSeconds),
            Arbitraries.of(0L, 10L, 30L, 60L).map(Duration::ofSeconds),
            Arbitraries.integers().between(1, 30))
        .as(PlacementPolicy::new);
  }

  @Provide
  Arbitrary<Simulation> simulations() {
    Arbitrary<List<GpuCapacity>> node =
        Arbitraries.of(gib(16), gib(24), gib(80))
            .map(total -> new GpuCapacity(0, "GPU", total, 0, 0, 0, null))
            .list()
            .ofMinSize(1)
            .ofMaxSize(4)
            .map(gpus -> numbered(gpus, i -> i * 2 + 1));
    Arbitrary<PlacementPolicy> policy =
        Combinators.combine(
                headrooms(),
                Arbitraries.of(0L, 30L, 120L, 300L).map(Duration::ofSeconds),
                Arbitraries.of(0L, 10L, 30L).map(Duration::ofSeconds),
                Arbitraries.integers().between(1, 10))
            .as(PlacementPolicy::new);
    Arbitrary<Job> job =
        Combinators.combine(
                requests(),
                Arbitraries.longs().between(0, 600),
                Arbitraries.longs().between(10, 600))
            .as(
                (r, arrival, duration) ->
                    new Job(
                        new PlacementRequest(
                            "j", r.gpus(), r.memory(), r.priority(), 0, NOW.plusSeconds(arrival)),
                        duration));
    Arbitrary<List<Job>> jobs =
        job.list().ofMinSize(1).ofMaxSize(20).map(PassSimulation::inArrivalOrder);
    return Combinators.combine(node, Arbitraries.integers().between(1, 3), jobs, policy)
        .as(Simulation::new);
  }
}
