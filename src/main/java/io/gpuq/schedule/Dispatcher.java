package io.gpuq.schedule;

import io.gpuq.fairshare.Capacity;
import io.gpuq.fairshare.FairShareOrder;
import io.gpuq.fairshare.Held;
import io.gpuq.fairshare.Limits;
import io.gpuq.fairshare.OverShare;
import io.gpuq.fairshare.PassLimits;
import io.gpuq.fairshare.Standing;
import io.gpuq.gpu.GpuDevice;
import io.gpuq.gpu.GpuUsage;
import io.gpuq.job.ClaimedJob;
import io.gpuq.job.JobPlacement;
import io.gpuq.job.JobService;
import io.gpuq.job.QueueHead;
import io.gpuq.job.QueuedJob;
import io.gpuq.launch.Workers;
import io.gpuq.placement.GpuCapacity;
import io.gpuq.placement.HostCapacity;
import io.gpuq.placement.PlacementDecision;
import io.gpuq.placement.PlacementPlan;
import io.gpuq.placement.PlacementRequest;
import io.gpuq.placement.Placer;
import io.gpuq.placement.Wait;
import io.gpuq.text.Cpus;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One scheduling pass: reads the head of the queue and this node's capacity (live workers' budgets,
 * measured GPU use; the cores and host memory it gives its jobs less what its live and launching
 * workers hold), lets the {@link Placer} decide, and starts what it placed.
 */
public class Dispatcher {

  private static final Logger log = LoggerFactory.getLogger(Dispatcher.class);

  /** An owner's jobs: priority (higher first), then submission (ids grow with it). */
  private static final Comparator<QueuedJob> SCHEDULING_ORDER =
      Comparator.comparingInt(QueuedJob::priority).reversed().thenComparing(QueuedJob::id);

  private final JobService jobs;
  private final Workers workers;
  private final JobExecution execution;
  private final Placer placer;
  private final NodeGpus gpus;
  private final LocalNode node;
  private final Clock clock;
  private final Executor starter;
  private final BooleanSupplier roomToStart;
  private final LastPass reasons;
  private final FairShareInputs fairShare;
  private final Supplier<Capacity> cluster;
  private final Supplier<Map<String, Double>> recentUsage;
  // Null: preemption is off (no preemption settings given).
  private final Preemptions preemptions;
  // gpuq.preemption.over-share-requires-preemptible (issue 35).
  private final boolean overShareRequiresPreemptible;
  private final Map<Integer, Instant> lastStartOnGpu = new ConcurrentHashMap<>();
  private final Set<CompletableFuture<Void>> launches = ConcurrentHashMap.newKeySet();
  private volatile boolean gpuJobsWaiting = true;
  // How far this pass read each queue, for the reasons of the jobs behind; the GPU queue's stands
  // until a pass reads it again. Only the scheduling loop's thread writes them.
  private LastPass.Head cpuHead;
  private LastPass.Head gpuHead;
  // How far the last pass read the GPU queue, while that read still says what a pass would read
  // and do: none after one that started or lost a job (the jobs behind move up). It stands while
  // the next pass runs (a submission judged against it then is remembered, and a pass that moves
  // the queue is followed by another): were it none meanwhile, each submission during a pass woke
  // the next, and a burst kept the scheduler reading the lookahead (issue 34). Read by submitting
  // threads (#wouldSee).
  private final AtomicReference<Reach> gpuReach = new AtomicReference<>(Reach.NONE);
  // Whether the pass just ended asks for another at once (the loop's thread only).
  private boolean followUp;
  // Whether the pass under way read the GPU queue (the loop's thread only).
  private boolean gpuQueueRead;

  /**
   * @param preemption the minimum runtime before a job may be preempted, and where preemptions are
   *     counted; null for none (issue 35)
   */
  public Dispatcher(
      JobService jobs,
      Workers workers,
      JobExecution execution,
      Placer placer,
      NodeGpus gpus,
      LocalNode node,
      Clock clock,
      Executor starter,
      BooleanSupplier roomToStart,
      LastPass reasons,
      FairShareInputs fairShare,
      Supplier<Capacity> cluster,
      Supplier<Map<String, Double>> recentUsage,
      PreemptionSettings preemption) {
    this.preemptions =
        preemption == null
            ? null
            : new Preemptions(
                jobs,
                workers,
                placer,
                node.name(),
                clock,
                preemption.minRuntime(),
                preemption.counted());
    this.overShareRequiresPreemptible =
        preemption != null && preemption.overShareRequiresPreemptible();
    this.fairShare = fairShare;
    this.cluster = cluster;
    this.recentUsage = recentUsage;
    this.roomToStart = roomToStart;
    this.reasons = reasons;
    this.starter = starter;
    this.jobs = jobs;
    this.workers = workers;
    this.execution = execution;
    this.placer = placer;
    this.gpus = gpus;
    this.node = node;
    this.clock = clock;
  }

  /**
   * One pass.
   *
   * @param gpuQueueMayHaveChanged whether a GPU job may have been queued or GPU capacity freed
   *     since the last pass: if not, and the last pass found no GPU job waiting, this one does not
   *     read that queue
   */
  public DispatchResult dispatch(boolean gpuQueueMayHaveChanged) {
    gpuQueueRead = false;
    followUp = false;
    DispatchResult result;
    try {
      result = pass(gpuQueueMayHaveChanged);
    } catch (RuntimeException | Error e) {
      // What it did before it failed is unknown: the next submission wakes a pass.
      gpuReach.set(Reach.NONE);
      throw e;
    }
    // A pass that started or lost jobs moved the queue: the next read may reach further.
    boolean moved = result.started() > 0 || result.lost() > 0;
    if (gpuQueueRead) {
      Reach judged = gpuReach.getAndSet(moved ? Reach.NONE : new Reach(gpuHead, false));
      // A job passed over while this pass ran may not have been read by it, and may be within
      // reach of the queue as it moved.
      followUp = moved && judged.passedOver();
    }
    return result;
  }

  /**
   * Whether the pass just ended asks for another GPU pass at once: it moved the GPU queue while a
   * submission was judged out of its reach.
   */
  boolean followUpWanted() {
    return followUp;
  }

  /**
   * The last read of the GPU queue that still says what a pass would read (none: no such read), and
   * whether a submission was judged out of its reach.
   */
  private record Reach(LastPass.Head head, boolean passedOver) {
    static final Reach NONE = new Reach(null, false);
  }

  /**
   * Whether the next pass would read this GPU job, just queued. Not when the last pass read the GPU
   * queue to its limit and the job comes after all it read (and nothing has moved since: a start, a
   * cancel or freed capacity wakes a pass of its own): that pass would read and place as the last
   * one did, so a submission behind a long queue need not wake one. With 100,000 queued, each such
   * pass read the GPU queue's whole lookahead, most of gpuq's CPU at 250 submissions a second.
   */
  public boolean wouldSee(String owner, int priority, String id) {
    while (true) {
      Reach reach = gpuReach.get();
      if (reach.head() == null || !reach.head().outOfReach(owner, priority, id)) {
        return true;
      }
      if (reach.passedOver() || gpuReach.compareAndSet(reach, new Reach(reach.head(), true))) {
        return false;
      }
    }
  }

  private DispatchResult pass(boolean gpuQueueMayHaveChanged) {
    if (!roomToStart.getAsBoolean()) {
      // A start writes the job's directories, log and exit file: queued jobs wait for space
      // rather than fail to launch. The loop's safety net tries again.
      return new DispatchResult(0, 0, null);
    }
    int freeCpu = Math.max(0, node.cpuSlots() - workers.cpuOnlyCount());
    HostCapacity host = hostCapacity();
    // Every job takes cores: with less than the smallest request free no CPU-only job can start,
    // and none is read.
    int cpuOnlyRoom = host.freeCpus().compareTo(Cpus.SMALLEST) < 0 ? 0 : freeCpu;
    boolean readGpuQueue =
        !gpus.inventory().devices().isEmpty() && (gpuQueueMayHaveChanged || gpuJobsWaiting);
    Instant now = clock.instant();
    if (preemptions != null && preemptions.beforePass()) {
      // A preemption is under way here: the place it frees is the waiting job's, so nothing else
      // starts until its victims are gone (at most their grace). Their ends wake the loop.
      reasons.record(
          reasons
              .lastPass()
              .map(last -> last.seenAgain(now, freeCpu, host.freeCpus(), host.freeMemoryBytes()))
              .orElse(null));
      return new DispatchResult(0, 0, Duration.ofSeconds(1));
    }
    Map<String, String> waiting = new HashMap<>();
    Map<String, Integer> fullSweeps = new HashMap<>();
    // No slot free, but a preemption could free one: each owner's first CPU-only job is read, so
    // that one below their share is considered (it waits in this pass, as the placer finds no
    // slot for it).
    int cpuRead =
        cpuOnlyRoom == 0 && preemptions != null && preemptions.mayFreeCpuSlot() ? 1 : cpuOnlyRoom;
    List<QueuedJob> queue = queueHead(cpuRead, readGpuQueue, waiting, fullSweeps);
    int heldStarted = 0;
    if (queue != null && preemptions != null) {
      List<QueuedJob> held = preemptions.heldAmong(queue);
      if (!held.isEmpty()) {
        heldStarted = startHeld(held, freeCpu, host, now);
        List<QueuedJob> rest = new ArrayList<>(queue);
        rest.removeAll(held);
        queue = rest;
      }
    }
    if (queue == null) {
      // Nothing read: no CPU slot (or no core) is free, and the GPU queue and capacity are as the
      // last pass found them, so its reasons stand; the CPU-only jobs wait for a slot or cores.
      reasons.record(
          reasons
              .lastPass()
              .map(last -> last.seenAgain(now, freeCpu, host.freeCpus(), host.freeMemoryBytes()))
              .orElse(null));
      return new DispatchResult(0, 0, null);
    }
    if (queue.isEmpty()) {
      reasons.record(
          new LastPass.Pass(
              now,
              node.name(),
              freeCpu,
              waiting,
              fullSweeps,
              cpuHead,
              gpuHead,
              host.freeCpus(),
              host.freeMemoryBytes(),
              Map.of()));
      return new DispatchResult(0, 0, null);
    }
    // A held job's start counts against what is left for the rest.
    int freeCpuNow =
        heldStarted == 0 ? freeCpu : Math.max(0, node.cpuSlots() - workers.cpuOnlyCount());
    HostCapacity hostNow = heldStarted == 0 ? host : hostCapacity();
    List<GpuCapacity> capacities = capacities();
    FairShareOrder order = fairShareOrder(queue, capacities);
    PlacementPlan plan = placer.plan(capacities, freeCpuNow, hostNow, order, now);
    plan.waits().forEach((id, wait) -> waiting.put(id, reasonFor(id, wait, plan, order)));
    Map<String, String> ownersAtLimit = new HashMap<>();
    order
        .limited()
        .forEach(
            (id, limit) -> {
              waiting.put(id, limit.reason());
              // A running-jobs limit holds back every job of its owner, read by this pass or not.
              String owner = order.ownerOf(id);
              if (limit.key().equals("max-running-jobs") && owner != null) {
                ownersAtLimit.put(owner, limit.reason());
              }
            });
    if (preemptions != null) {
      Map<String, Wait> waits = plan.waits().asMap();
      List<QueuedJob> waitingForRoom =
          queue.stream()
              .filter(
                  job ->
                      waits.get(job.id()) != null
                          && !(waits.get(job.id()) instanceof Wait.NeverHere))
              .filter(job -> !ownersAtLimit.containsKey(job.owner()))
              .toList();
      preemptions.consider(
          waitingForRoom,
          standingsWithRunningOwners(order),
          order.capacity(),
          capacities,
          freeCpuNow,
          hostNow,
          job -> JobDemands.requestOf(job, 0),
          waiting);
    }
    long cpuPlaced = plan.starts().stream().filter(PlacementDecision::isCpuOnly).count();
    reasons.record(
        new LastPass.Pass(
            now,
            node.name(),
            (int) (freeCpuNow - cpuPlaced),
            waiting,
            fullSweeps,
            cpuHead,
            gpuHead,
            plan.freeCpus(),
            plan.freeMemoryBytes(),
            ownersAtLimit));
    Map<String, JobPlacement> placements = new LinkedHashMap<>();
    for (PlacementDecision decision : plan.starts()) {
      placements.put(decision.jobId(), placementOf(decision));
    }
    // One transaction claims the whole plan; jobs another node claimed meanwhile drop out.
    // Each owner's running limits are checked again there, against what every node holds by then.
    List<ClaimedJob> claimed =
        jobs.markStarted(
            placements, order.startLimits().withHeldBeside(HeldBesideWorkers.of(workers)));
    launch(claimed, placements, now);
    int started = claimed.size() + heldStarted;
    Duration retryIn = plan.retryAt().map(at -> Duration.between(now, at)).orElse(null);
    return new DispatchResult(started, placements.size() - claimed.size(), retryIn);
  }

  /**
   * The minimum runtime before a job may be preempted for fair share, and what counts each
   * preemption (issue 35).
   *
   * @param overShareRequiresPreemptible {@code gpuq.preemption.over-share-requires-preemptible}: a
   *     job that may not be preempted starts only while its owner stays within their share
   */
  public record PreemptionSettings(
      Duration minRuntime,
      java.util.function.Consumer<io.gpuq.job.PreemptReason> counted,
      boolean overShareRequiresPreemptible) {

    public PreemptionSettings(
        Duration minRuntime, java.util.function.Consumer<io.gpuq.job.PreemptReason> counted) {
      this(minRuntime, counted, false);
    }
  }

  /**
   * Starts the jobs held for the places their preemptions freed, before any other job of the pass
   * (issue 35).
   *
   * @return how many started
   */
  private int startHeld(List<QueuedJob> held, int freeCpu, HostCapacity host, Instant now) {
    List<PlacementRequest> requests = new ArrayList<>();
    for (int i = 0; i < held.size(); i++) {
      requests.add(JobDemands.requestOf(held.get(i), i));
    }
    PlacementPlan plan =
        placer.plan(
            capacities(), freeCpu, host, io.gpuq.placement.PassOrder.queueOrder(requests), now);
    Map<String, JobPlacement> placements = new LinkedHashMap<>();
    for (PlacementDecision decision : plan.starts()) {
      placements.put(decision.jobId(), placementOf(decision));
    }
    if (placements.isEmpty()) {
      return 0;
    }
    List<ClaimedJob> claimed = jobs.markStarted(placements);
    launch(claimed, placements, now);
    return claimed.size();
  }

  /**
   * Every owner's standing for a preemption: those of the queue the order read, and those whose
   * jobs run here, with what they hold over every node.
   */
  private Map<String, Standing> standingsWithRunningOwners(FairShareOrder order) {
    Map<String, Standing> standings = new HashMap<>(order.standings());
    Map<String, Held> held = withHeldBeside(jobs.heldByOwner());
    Map<String, Double> recent = recentUsage.get();
    for (Map.Entry<String, Held> entry : held.entrySet()) {
      standings.computeIfAbsent(
          entry.getKey(),
          owner ->
              new Standing(
                  fairShare.shareOf(owner), entry.getValue(), recent.getOrDefault(owner, 0.0)));
    }
    // An owner read by the order with one owner in the queue has no held figures: read them now.
    standings.replaceAll(
        (owner, standing) ->
            standing.held().equals(Held.NONE) && held.containsKey(owner)
                ? new Standing(standing.share(), held.get(owner), standing.recent())
                : standing);
    return standings;
  }

  /**
   * Launches claimed jobs side by side on the starter threads; the pass does not wait for them: the
   * places they hold count as taken until each worker is live (or its launch failed).
   */
  private void launch(List<ClaimedJob> claimed, Map<String, JobPlacement> placements, Instant now) {
    for (ClaimedJob job : claimed) {
      JobPlacement placement = placements.get(job.id());
      placement.gpus().forEach(gpu -> lastStartOnGpu.put(gpu.index(), now));
      workers.reserveForLaunch(job.id(), placement, job.host());
      CompletableFuture<Void> launch =
          CompletableFuture.supplyAsync(() -> execution.launch(job, placement), starter)
              .thenCompose(process -> jobs.recordWorkerProcesses(process.stream().toList()))
              .exceptionally(
                  failure -> {
                    log.error("launching job {} failed", job.id(), failure);
                    return null;
                  });
      launches.add(launch);
      launch.whenComplete((done, failure) -> launches.remove(launch));
    }
  }

  /**
   * The pass's order: each owner's jobs in their scheduling order (priority, then submission), the
   * owners by fair share, from what they hold now over every node and their recent usage; each
   * owner kept within their running limits.
   */
  private FairShareOrder fairShareOrder(List<QueuedJob> queue, List<GpuCapacity> capacities) {
    Map<String, List<PlacementRequest>> byOwner = new LinkedHashMap<>();
    List<QueuedJob> ordered = new ArrayList<>(queue);
    ordered.sort(SCHEDULING_ORDER);
    for (int i = 0; i < ordered.size(); i++) {
      QueuedJob job = ordered.get(i);
      // The position is the submission order the placer needs within an owner.
      byOwner
          .computeIfAbsent(job.owner(), owner -> new ArrayList<>())
          .add(JobDemands.requestOf(job, i));
    }
    Map<String, Limits> limits = new HashMap<>();
    for (String owner : byOwner.keySet()) {
      limits.put(owner, fairShare.limitsOf(owner));
    }
    // With one owner in the queue there is no one to share with: nothing more to read, unless
    // their limits count what they hold.
    boolean shared = byOwner.size() > 1;
    boolean limited = limits.values().stream().anyMatch(Limits::limitsRunning);
    Map<String, Held> held =
        shared || limited || overShareRequiresPreemptible
            ? withHeldBeside(jobs.heldByOwner())
            : Map.of();
    Map<String, Double> recent = shared ? recentUsage.get() : Map.of();
    Map<String, Standing> standings = new HashMap<>();
    for (String owner : byOwner.keySet()) {
      standings.put(
          owner,
          new Standing(
              fairShare.shareOf(owner),
              held.getOrDefault(owner, Held.NONE),
              recent.getOrDefault(owner, 0.0)));
    }
    long largestGpu = 0;
    for (GpuCapacity gpu : capacities) {
      largestGpu = Math.max(largestGpu, gpu.totalBytes());
    }
    // Each start counts its GPUs, cores and host memory against its owner at once.
    return new FairShareOrder(
        cluster.get(),
        standings,
        byOwner,
        new PassLimits(limits, largestGpu),
        overShare(ordered, byOwner.keySet(), held));
  }

  /**
   * The over-share rule for this pass (issue 35): the preemptible jobs it lets through, and the
   * shares of every owner who runs or waits.
   */
  private OverShare overShare(
      List<QueuedJob> queue, Set<String> waitingOwners, Map<String, Held> held) {
    if (!overShareRequiresPreemptible) {
      return OverShare.OFF;
    }
    Set<String> preemptible = new HashSet<>();
    queue.forEach(
        job -> {
          if (job.preemptible()) {
            preemptible.add(job.id());
          }
        });
    Set<String> owners = new HashSet<>(waitingOwners);
    held.forEach(
        (owner, holds) -> {
          if (holds.jobs() > 0) {
            owners.add(owner);
          }
        });
    double totalShares = owners.stream().mapToDouble(fairShare::shareOf).sum();
    return new OverShare(true, preemptible, totalShares);
  }

  /**
   * Why a job the pass examined waits: for lack of room (GPU memory or a CPU slot) while another
   * owner's job took a place before it, that owner's turn, with the waiting owner's figures;
   * otherwise what the placer saw.
   */
  private String reasonFor(String id, Wait wait, PlacementPlan plan, FairShareOrder order) {
    if (wait instanceof Wait.NoRoom
        || wait instanceof Wait.NoCpuSlot
        || wait instanceof Wait.NoCores
        || wait instanceof Wait.NoHostMemory) {
      Optional<String> first = order.turnGivenTo(id);
      String owner = order.ownerOf(id);
      if (first.isPresent() && owner != null) {
        Map<String, Standing> standings = order.standings();
        Standing standing = standings.get(owner);
        double totalShares = standings.values().stream().mapToDouble(Standing::share).sum();
        return QueuedReasons.turnFirst(
            first.get(),
            owner,
            order.capacity().dominant(standing.held()),
            standing.recent(),
            standing.share(),
            totalShares);
      }
    }
    return QueuedReasons.forWait(wait, plan.mostFree(), node.name());
  }

  /**
   * Waits, at most {@code timeout}, for the launches under way: a job claimed before gpuq stops
   * should reach its worker, and its worker's PID the database.
   */
  public void awaitLaunches(Duration timeout) {
    try {
      CompletableFuture.allOf(launches.toArray(CompletableFuture[]::new))
          .get(timeout.toMillis(), TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (ExecutionException | TimeoutException e) {
      log.warn("launches still under way at shutdown: {}", launches.size());
    }
  }

  /**
   * The queued jobs this pass considers: as many CPU-only jobs as there are free slots (the whole
   * lookahead if node selectors turn some of those away; none while no core is free), and the
   * lookahead of GPU jobs if this node has GPUs.
   */
  private List<QueuedJob> queueHead(
      int freeSlots,
      boolean readGpuQueue,
      Map<String, String> waiting,
      Map<String, Integer> fullSweeps) {
    int lookahead = placer.policy().lookahead();
    int cpuFirst = Math.min(lookahead, freeSlots);
    if (cpuFirst == 0 && !readGpuQueue) {
      return null;
    }
    // The first jobs of every owner: no owner can start more CPU-only jobs than there are free
    // slots, and every owner with any is read, up to the lookahead in all.
    QueueHead head =
        jobs.queueHead(
            cpuFirst, cpuFirst == 0 ? 0 : lookahead, lookahead, readGpuQueue ? lookahead : 0);
    if (readGpuQueue) {
      gpuQueueRead = true;
      gpuJobsWaiting = !head.gpu().isEmpty();
      gpuHead = LastPass.Head.of(head.gpu(), lookahead, lookahead);
    }
    cpuHead = cpuFirst == 0 ? null : LastPass.Head.of(head.cpuOnly(), cpuFirst, lookahead);
    List<QueuedJob> cpu = placeable(head, head.cpuOnly(), waiting, fullSweeps);
    if (cpu.size() < freeSlots
        && cpuFirst < lookahead
        && cpuHead.lastByOwner().values().stream().anyMatch(last -> last.count() >= cpuFirst)) {
      // Node selectors or sweeps' limits turned some away: read further, up to the lookahead.
      QueueHead wider = jobs.queueHead(lookahead, lookahead, 0, 0);
      cpuHead = LastPass.Head.of(wider.cpuOnly(), lookahead, lookahead);
      cpu = placeable(wider, wider.cpuOnly(), waiting, fullSweeps);
    }
    List<QueuedJob> queue = new ArrayList<>(cpu);
    queue.addAll(placeable(head, head.gpu(), waiting, fullSweeps));
    return queue;
  }

  /** Those of a queue head that this node may place, in its order; the others get a reason. */
  private List<QueuedJob> placeable(
      QueueHead head,
      List<QueuedJob> queued,
      Map<String, String> waiting,
      Map<String, Integer> fullSweeps) {
    head.limitedSweeps()
        .forEach(
            (sweep, slots) -> {
              if (slots.full()) {
                fullSweeps.put(sweep, slots.maxConcurrent());
              }
            });
    return TrialTurns.within(
        selectedHere(queued, waiting), head.limitedSweeps(), waiting, fullSweeps);
  }

  private List<QueuedJob> selectedHere(List<QueuedJob> queued, Map<String, String> waiting) {
    List<QueuedJob> selected = new ArrayList<>(queued.size());
    for (QueuedJob job : queued) {
      if (node.selects().test(job.nodeSelector())) {
        selected.add(job);
      } else {
        waiting.put(job.id(), QueuedReasons.notSelected(job.nodeSelector(), node.name()));
      }
    }
    return selected;
  }

  /**
   * What the owners' running jobs hold, plus what this node holds for them beside their workers (a
   * warm-start zygote's memory and CPU, issue 36): their share counts both.
   */
  private Map<String, Held> withHeldBeside(Map<String, Held> held) {
    return HeldBesideWorkers.plus(held, HeldBesideWorkers.of(workers));
  }

  /**
   * This node's cores and host memory: what it gives its jobs, and what its live and launching
   * workers hold of them.
   */
  private HostCapacity hostCapacity() {
    Workers.HostHeld held = workers.hostHeld();
    return new HostCapacity(
        node.allocatable().cpus(),
        node.allocatable().memoryBytes(),
        held.cpus(),
        held.memoryBytes());
  }

  /** What the placer knows of each GPU now: budgets of live workers, and the last measurement. */
  public List<GpuCapacity> capacities() {
    Map<Integer, Long> reserved = workers.reservedBytesByGpu();
    GpuUsage measured = gpus.usage().get();
    List<GpuCapacity> capacities = new ArrayList<>();
    for (GpuDevice device : gpus.inventory().devices()) {
      capacities.add(
          new GpuCapacity(
              device.index(),
              device.uuid(),
              device.memoryTotalBytes(),
              reserved.getOrDefault(device.index(), 0L),
              measured.usedBytes(device.index()),
              measured.foreignBytes(device.index()),
              lastStartOnGpu.get(device.index())));
    }
    return capacities;
  }

  private JobPlacement placementOf(PlacementDecision decision) {
    if (decision.isCpuOnly()) {
      return JobPlacement.cpuOnly(node.name());
    }
    return JobPlacement.of(node.name(), decision.gpus());
  }
}
