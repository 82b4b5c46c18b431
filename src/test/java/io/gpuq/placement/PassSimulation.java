package io.gpuq.placement;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.BiConsumer;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.LongUnaryOperator;
import java.util.function.Predicate;
import java.util.stream.IntStream;

/**
 * Placement passes over one node, simulated for the property tests: jobs arrive, wait, start as
 * each pass decides, run for their length and end. A pass runs every {@link #TICK} seconds on the
 * node as the simulation's own books leave it: the running jobs' processes use exactly their
 * budgets, nothing foreign.
 *
 * <p>Every start must be of a job feasible on the node, and in the end every feasible job must have
 * started. The simulation runs until nothing is left to start or to end, or until the horizon: the
 * last arrival plus one allowance per job and one more.
 *
 * <pre>{@code
 * PassSimulation.of(gpus, jobs)
 *     .feasibleWhen(r -> placer.feasibility(r, gpus).isFeasible())
 *     .horizonPerJob(longestRun -> maxWait + longestRun + 2 * PassSimulation.TICK)
 *     .run(pass -> placer.plan(pass.gpus(), 0, pass.waitingRequests(), pass.now()));
 * }</pre>
 */
public final class PassSimulation {

  /** Seconds from one pass to the next. */
  public static final long TICK = 10;

  /**
   * A job of the simulation: its request, whose {@code queuedSince} is its arrival; how long it
   * runs once started; its owner, where fair share needs one (null otherwise).
   */
  public record Job(String owner, PlacementRequest request, long durationSeconds) {

    public Job(PlacementRequest request, long durationSeconds) {
      this(null, request, durationSeconds);
    }

    public String id() {
      return request.jobId();
    }
  }

  private final List<GpuCapacity> node;
  private final List<Job> jobs;
  private Instant start = PlacementFixtures.NOW;
  private int cpuSlots;
  private Predicate<PlacementRequest> feasibleOnNode;
  private LongUnaryOperator perJob;
  private PlacementPolicy reservationPolicy;
  private Function<Pass, String> headOf;
  private BiConsumer<Pass, PlacementDecision> eachStart = (pass, decision) -> {};
  private Consumer<Pass> afterEachPass = pass -> {};

  private PassSimulation(List<GpuCapacity> node, List<Job> jobs) {
    this.node = List.copyOf(node);
    this.jobs = List.copyOf(jobs);
  }

  /** Passes over {@code node}, empty at first, for {@code jobs}. */
  public static PassSimulation of(List<GpuCapacity> node, List<Job> jobs) {
    return new PassSimulation(node, jobs);
  }

  /** The instant of the first pass, from which arrivals count; {@link PlacementFixtures#NOW}. */
  public PassSimulation from(Instant start) {
    this.start = start;
    return this;
  }

  /** The node's CPU slots, of which each running CPU-only job takes one; none by default. */
  public PassSimulation cpuSlots(int cpuSlots) {
    this.cpuSlots = cpuSlots;
    return this;
  }

  /** Which jobs could ever run on the node: those must all start, and no other may. Required. */
  public PassSimulation feasibleWhen(Predicate<PlacementRequest> feasibleOnNode) {
    this.feasibleOnNode = feasibleOnNode;
    return this;
  }

  /**
   * The seconds each job may add to the horizon, given the longest run of all jobs. Required.
   *
   * @see #longestRun(List)
   */
  public PassSimulation horizonPerJob(LongUnaryOperator perJobGivenLongestRun) {
    this.perJob = perJobGivenLongestRun;
    return this;
  }

  /**
   * Checks the reservation rule's bound: a job that is the head (as {@code headOf} names it from
   * the pass before anything starts; null for none) from instant {@code h} on, and keeps that
   * place, starts by {@code max(h, queuedSince + maxWait) + max(longest run, start spacing)} plus
   * two pass intervals.
   */
  public PassSimulation reservationBound(PlacementPolicy policy, Function<Pass, String> headOf) {
    this.reservationPolicy = policy;
    this.headOf = headOf;
    return this;
  }

  /** Called for every start a pass decides, before it is applied. */
  public PassSimulation eachStart(BiConsumer<Pass, PlacementDecision> check) {
    this.eachStart = check;
    return this;
  }

  /** Called after each pass's starts are applied. */
  public PassSimulation afterEachPass(Consumer<Pass> check) {
    this.afterEachPass = check;
    return this;
  }

  /** The longest run of {@code jobs}, 0 for none. */
  public static long longestRun(List<Job> jobs) {
    return jobs.stream().mapToLong(Job::durationSeconds).max().orElse(0);
  }

  /**
   * Runs the passes, each decided by {@code passPlan}, and checks that only feasible jobs start and
   * every feasible job does.
   */
  public void run(Function<Pass, PlacementPlan> passPlan) {
    Objects.requireNonNull(feasibleOnNode, "feasibleWhen");
    Objects.requireNonNull(perJob, "horizonPerJob");
    long longestRun = longestRun(jobs);
    long lastArrival =
        jobs.stream()
            .mapToLong(j -> j.request().queuedSince().getEpochSecond() - start.getEpochSecond())
            .max()
            .orElse(0);
    long horizon = lastArrival + (jobs.size() + 1) * perJob.applyAsLong(longestRun);
    Books books = new Books();
    for (Job job : jobs) {
      books.byId.put(job.id(), job);
      books.feasible.put(job.id(), feasibleOnNode.test(job.request()));
    }
    String head = null;
    Instant headSince = null;

    for (long t = 0; t <= horizon; t += TICK) {
      Pass pass = new Pass(books, start.plusSeconds(t));
      long elapsed = t;
      books
          .running
          .keySet()
          .removeIf(
              id -> books.startedAt.get(id) + books.byId.get(id).durationSeconds() <= elapsed);
      if (books.running.isEmpty()
          && t > lastArrival
          && pass.waiting().stream().noneMatch(j -> books.feasible.get(j.id()))) {
        break;
      }
      if (headOf != null) {
        String headNow = headOf.apply(pass);
        if (headNow != null && !headNow.equals(head)) {
          headSince = pass.now();
        }
        head = headNow;
      }

      PlacementPlan plan = passPlan.apply(pass);
      for (PlacementDecision d : plan.starts()) {
        assertThat(books.feasible.get(d.jobId())).as("infeasible %s started", d.jobId()).isTrue();
        eachStart.accept(pass, d);
        books.startedAt.put(d.jobId(), t);
        books.running.put(d.jobId(), d);
        d.gpuIndices().forEach(i -> books.lastStart.put(i, pass.now()));
        if (d.jobId().equals(head)) {
          assertStartedWithinBound(
              books.byId.get(d.jobId()).request(), pass.now(), headSince, longestRun);
        }
      }
      afterEachPass.accept(pass);
    }

    List<String> neverStarted =
        jobs.stream()
            .map(Job::id)
            .filter(id -> books.feasible.get(id) && !books.startedAt.containsKey(id))
            .toList();
    assertThat(neverStarted).as("feasible jobs that never started").isEmpty();
  }

  private void assertStartedWithinBound(
      PlacementRequest r, Instant now, Instant headSince, long longestRun) {
    PlacementPolicy policy = reservationPolicy;
    Instant reservedFrom = max(headSince, r.queuedSince().plus(policy.maxWaitBeforeReservation()));
    Instant bound =
        reservedFrom
            .plusSeconds(Math.max(longestRun, policy.startSpacing().toSeconds()))
            .plusSeconds(2 * TICK);
    assertThat(now)
        .as("start of head %s, head since %s", r.jobId(), headSince)
        .isBeforeOrEqualTo(bound);
  }

  private static Instant max(Instant a, Instant b) {
    return a.isAfter(b) ? a : b;
  }

  /** What the simulation keeps of the node and the jobs. */
  private static final class Books {
    final Map<String, Job> byId = new HashMap<>();
    final Map<String, Boolean> feasible = new HashMap<>();
    final Map<String, Long> startedAt = new HashMap<>();
    final Map<String, PlacementDecision> running = new LinkedHashMap<>();
    final Map<Integer, Instant> lastStart = new HashMap<>();
  }

  /** One pass as its decision and the checks see it; what runs is kept up to date. */
  public final class Pass {
    private final Books books;
    private final Instant now;

    private Pass(Books books, Instant now) {
      this.books = books;
      this.now = now;
    }

    public Instant now() {
      return now;
    }

    /** The jobs that have arrived and not started, in arrival order. */
    public List<Job> waiting() {
      return jobs.stream()
          .filter(
              j -> !j.request().queuedSince().isAfter(now) && !books.startedAt.containsKey(j.id()))
          .toList();
    }

    public List<PlacementRequest> waitingRequests() {
      return waiting().stream().map(Job::request).toList();
    }

    /** The running jobs' decisions by job id, oldest start first. */
    public Map<String, PlacementDecision> running() {
      return Collections.unmodifiableMap(books.running);
    }

    public Job job(String id) {
      return books.byId.get(id);
    }

    /** Whether the job could ever run on the node. */
    public boolean feasible(String id) {
      return books.feasible.get(id);
    }

    /** The node's GPUs with the running jobs' budgets in use and each GPU's last start. */
    public List<GpuCapacity> gpus() {
      return gpusWith(node, books.running.values(), books.lastStart);
    }

    /** The CPU slots no running CPU-only job takes. */
    public int freeCpuSlots() {
      return cpuSlots
          - (int) books.running.values().stream().filter(PlacementDecision::isCpuOnly).count();
    }
  }

  /** The node with the budgets of the running jobs reserved (and measured) on their GPUs. */
  public static List<GpuCapacity> gpusWith(
      List<GpuCapacity> node, Iterable<PlacementDecision> running) {
    return gpusWith(node, running, Map.of());
  }

  /**
   * The node with the budgets of the running jobs reserved (and measured) on their GPUs, nothing
   * foreign, and the instant of each GPU's last start where {@code lastStart} has one.
   */
  public static List<GpuCapacity> gpusWith(
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

  /** Numbers jobs by arrival: the sequence is the submission order, the ids job-0, job-1, … */
  public static List<Job> inArrivalOrder(List<Job> jobs) {
    List<Job> sorted =
        jobs.stream().sorted(Comparator.comparing(j -> j.request().queuedSince())).toList();
    return IntStream.range(0, sorted.size())
        .mapToObj(
            i -> {
              Job j = sorted.get(i);
              PlacementRequest r = j.request();
              return new Job(
                  j.owner(),
                  new PlacementRequest(
                      "job-" + i,
                      r.gpus(),
                      r.memory(),
                      r.priority(),
                      i,
                      r.queuedSince(),
                      r.cpus(),
                      r.hostMemoryBytes()),
                  j.durationSeconds());
            })
        .toList();
  }
}
