package io.gpuq.schedule;

import io.gpuq.fairshare.Capacity;
import io.gpuq.fairshare.Standing;
import io.gpuq.fairshare.VictimChoice;
import io.gpuq.job.Job;
import io.gpuq.job.JobService;
import io.gpuq.job.PreemptReason;
import io.gpuq.job.QueuedJob;
import io.gpuq.launch.StopReason;
import io.gpuq.launch.Workers;
import io.gpuq.placement.GpuCapacity;
import io.gpuq.placement.HostCapacity;
import io.gpuq.placement.PassOrder;
import io.gpuq.placement.PlacedGpu;
import io.gpuq.placement.PlacementPlan;
import io.gpuq.placement.Placer;
import io.gpuq.text.Cpus;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Consumer;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Preemption for fair share on this node (issue 35), the scheduling pass's part of it.
 *
 * <p>Before a pass ({@link #beforePass}): the running jobs of this node being preempted (a stored
 * fact, so that a gpuq that restarts during a grace period finds them) get their signal if their
 * worker has not had it yet; a waiting job whose victims are all gone is <em>held</em>: the pass
 * places it before anything else. While a preemption is under way (victims still stopping), the
 * node starts nothing else, so that no other job takes the place being freed; that lasts at most
 * the victims' grace.
 *
 * <p>After a pass ({@link #consider}): when a job waits for room, its owner is below their share,
 * and running preemptible jobs of owners above theirs hold the room, {@link VictimChoice} picks the
 * fewest of them that make it fit, as this node's own placer judges the fit. The choice is stored
 * for all the victims and the waiting job at once ({@link JobService#preemptFor}: the claim's
 * versioned rows, so two nodes never preempt for one job); then the victims are signalled.
 */
final class Preemptions {

  private static final Logger log = LoggerFactory.getLogger(Preemptions.class);

  private final JobService jobs;
  private final Workers workers;
  private final Placer placer;
  private final String node;
  private final Clock clock;
  private final Duration minRuntime;
  private final Consumer<PreemptReason> counted;

  // The waiting job each preemption under way serves, with its victims still running here.
  private final Map<String, Set<String>> underWay = new LinkedHashMap<>();
  // Waiting jobs whose victims are gone: the next pass places them first.
  private final Set<String> held = new LinkedHashSet<>();
  private final Map<String, String> reasons = new HashMap<>();
  private List<Job> running = List.of();
  private Instant readAt;

  /**
   * How old this node's running jobs, as last read, may be when no preemption is under way. Passes
   * can follow each other closely on a busy node; a stale list is safe (the store checks each
   * victim again when the preemption is stored), and costs at most this long of delay.
   */
  static final Duration REREAD = Duration.ofSeconds(1);

  Preemptions(
      JobService jobs,
      Workers workers,
      Placer placer,
      String node,
      Clock clock,
      Duration minRuntime,
      Consumer<PreemptReason> counted) {
    this.jobs = jobs;
    this.workers = workers;
    this.placer = placer;
    this.node = node;
    this.clock = clock;
    this.minRuntime = minRuntime;
    this.counted = counted;
  }

  /**
   * Reads this node's running jobs; signals those being preempted whose worker has not been stopped
   * yet (after a restart, or a manual requeue stored by another node); moves the waiting jobs whose
   * victims are gone to the held ones.
   *
   * @return whether a preemption for a waiting job is still under way here: then the pass starts
   *     nothing
   */
  boolean beforePass() {
    Instant now = clock.instant();
    if (readAt != null && underWay.isEmpty() && now.isBefore(readAt.plus(REREAD))) {
      return false;
    }
    readAt = now;
    running = jobs.runningOn(node);
    Map<String, Set<String>> stillRunning = new LinkedHashMap<>();
    for (Job job : running) {
      Optional<PreemptReason> reason = job.preemptReason();
      if (reason.isEmpty()) {
        continue;
      }
      stop(job, reason.get());
      if (job.preemptedFor() != null) {
        stillRunning.computeIfAbsent(job.preemptedFor(), k -> new HashSet<>()).add(job.id());
      }
    }
    for (String served : underWay.keySet()) {
      if (!stillRunning.containsKey(served)) {
        held.add(served);
      }
    }
    underWay.clear();
    underWay.putAll(stillRunning);
    return !underWay.isEmpty();
  }

  /**
   * Whether a preemption could free a CPU slot here: a preemptible CPU-only job runs on this node
   * and is not being preempted yet. Only then does a pass read CPU-only jobs while no slot is free,
   * as a waiting one may have a slot made for it.
   */
  boolean mayFreeCpuSlot() {
    return running != null
        && running.stream()
            .anyMatch(
                job ->
                    job.preemption().preemptible()
                        && job.preemptReason().isEmpty()
                        && job.placement() != null
                        && job.placement().gpus().isEmpty());
  }

  /** The reason each waiting job served by a preemption under way gives. */
  Map<String, String> reasons() {
    Map<String, String> now = new HashMap<>();
    underWay
        .keySet()
        .forEach(id -> Optional.ofNullable(reasons.get(id)).ifPresent(r -> now.put(id, r)));
    return now;
  }

  /** The held jobs among those a pass read; they are held for this one pass only. */
  List<QueuedJob> heldAmong(List<QueuedJob> queue) {
    if (held.isEmpty()) {
      return List.of();
    }
    List<QueuedJob> found = queue.stream().filter(job -> held.contains(job.id())).toList();
    held.clear();
    return found;
  }

  /**
   * After a pass: preempts for the first job that waits, of the owner furthest below their share,
   * if that makes it fit here. One preemption per pass.
   *
   * @param waiting the jobs the pass left waiting, in the pass's order
   * @param standings every owner's standing (of the queue and of this node's running jobs)
   * @param waitingReasons where the waiting job's reason goes
   */
  void consider(
      List<QueuedJob> waiting,
      Map<String, Standing> standings,
      Capacity capacity,
      List<GpuCapacity> capacities,
      int freeCpu,
      HostCapacity host,
      Function<QueuedJob, io.gpuq.placement.PlacementRequest> requestOf,
      Map<String, String> waitingReasons) {
    if (waiting.isEmpty() || running.stream().noneMatch(job -> job.preemption().preemptible())) {
      return;
    }
    Map<String, Double> positions = new HashMap<>();
    double shares = 0;
    for (Map.Entry<String, Standing> entry : standings.entrySet()) {
      positions.put(entry.getKey(), entry.getValue().position(capacity));
      shares += entry.getValue().share();
    }
    VictimChoice.Standings owners = new VictimChoice.Standings(positions, 1 / shares);
    List<VictimChoice.Running> candidates = new ArrayList<>();
    Map<String, Job> byId = new HashMap<>();
    for (Job job : running) {
      if (job.preemptReason().isPresent() || job.startedAt() == null) {
        continue;
      }
      byId.put(job.id(), job);
      candidates.add(candidateOf(job));
    }
    Instant now = clock.instant();
    List<QueuedJob> byPosition = new ArrayList<>(waiting);
    byPosition.sort(
        java.util.Comparator.comparingDouble((QueuedJob job) -> owners.positionOf(job.owner())));
    for (QueuedJob job : byPosition) {
      if (!owners.isBelow(job.owner())) {
        return;
      }
      var request = requestOf.apply(job);
      Optional<List<VictimChoice.Running>> victims =
          VictimChoice.choose(
              job.owner(),
              candidates,
              owners,
              now,
              minRuntime,
              gone -> fitsWithout(request, gone, byId, capacities, freeCpu, host, now));
      if (victims.isPresent()) {
        preempt(job, victims.get(), byId, waitingReasons);
        return;
      }
    }
  }

  private void preempt(
      QueuedJob served,
      List<VictimChoice.Running> victims,
      Map<String, Job> byId,
      Map<String, String> waitingReasons) {
    Map<String, Integer> attempts = new LinkedHashMap<>();
    for (VictimChoice.Running victim : victims) {
      attempts.put(victim.jobId(), byId.get(victim.jobId()).attempt());
    }
    if (!jobs.preemptFor(served.id(), node, attempts)) {
      log.info(
          "preemption for job {} not stored: another node or a change came first", served.id());
      return;
    }
    Duration longest = Duration.ZERO;
    Set<String> ids = new HashSet<>();
    for (VictimChoice.Running victim : victims) {
      Job job = byId.get(victim.jobId());
      ids.add(job.id());
      if (job.preemption().grace().compareTo(longest) > 0) {
        longest = job.preemption().grace();
      }
      stop(job, PreemptReason.FAIR_SHARE);
      counted.accept(PreemptReason.FAIR_SHARE);
    }
    underWay.put(served.id(), ids);
    String reason = QueuedReasons.preempting(victims.size(), longest);
    reasons.put(served.id(), reason);
    waitingReasons.put(served.id(), reason);
    log.info(
        "preempting {} for job {} of {} (below their share)", ids, served.id(), served.owner());
  }

  private void stop(Job job, PreemptReason reason) {
    String detail =
        switch (reason) {
          case FAIR_SHARE -> "preempted for another owner's job (fair share)";
          case MANUAL -> "requeued on request";
          case REQUEUE_EXIT -> "requeued by its exit code";
        };
    workers.stop(
        job.id(),
        StopReason.PREEMPTED,
        detail,
        job.preemption().signal().number(),
        job.preemption().grace());
  }

  private static VictimChoice.Running candidateOf(Job job) {
    Map<Integer, Long> gpuBytes = new HashMap<>();
    boolean whole = false;
    if (job.placement() != null) {
      for (PlacedGpu gpu : job.placement().gpus()) {
        gpuBytes.put(gpu.index(), gpu.memoryBytes());
      }
      whole = job.gpus() > 0 && job.gpuMemoryBytes() == null && job.gpuFraction() == null;
    }
    return new VictimChoice.Running(
        job.id(),
        job.owner(),
        job.startedAt(),
        job.preemption().preemptible(),
        gpuBytes,
        whole,
        job.host().cpus().millis(),
        job.host().memoryBytes() == null ? 0 : job.host().memoryBytes());
  }

  /** Whether this node's placer would start the request once {@code gone} have freed their room. */
  private boolean fitsWithout(
      io.gpuq.placement.PlacementRequest request,
      List<VictimChoice.Running> gone,
      Map<String, Job> byId,
      List<GpuCapacity> capacities,
      int freeCpu,
      HostCapacity host,
      Instant now) {
    Map<Integer, Long> freed = new HashMap<>();
    Cpus cpus = Cpus.ZERO;
    long memory = 0;
    int cpuSlots = 0;
    for (VictimChoice.Running victim : gone) {
      victim.gpuBytes().forEach((gpu, bytes) -> freed.merge(gpu, bytes, Long::sum));
      cpus = cpus.plus(Cpus.ofMillis(victim.millicores()));
      memory += victim.hostMemoryBytes();
      if (victim.gpuBytes().isEmpty()) {
        cpuSlots++;
      }
    }
    List<GpuCapacity> after = new ArrayList<>();
    for (GpuCapacity gpu : capacities) {
      long less = freed.getOrDefault(gpu.index(), 0L);
      after.add(
          new GpuCapacity(
              gpu.index(),
              gpu.uuid(),
              gpu.totalBytes(),
              Math.max(0, gpu.reservedBytes() - less),
              Math.max(0, gpu.measuredUsedBytes() - less),
              gpu.foreignUsedBytes(),
              null));
    }
    Cpus taken = host.takenCpus().compareTo(cpus) > 0 ? host.takenCpus().less(cpus) : Cpus.ZERO;
    HostCapacity hostAfter =
        new HostCapacity(
            host.allocatableCpus(),
            host.allocatableMemoryBytes(),
            taken,
            Math.max(0, host.takenMemoryBytes() - memory));
    PlacementPlan plan =
        placer.plan(
            after, freeCpu + cpuSlots, hostAfter, PassOrder.queueOrder(List.of(request)), now);
    return !plan.starts().isEmpty();
  }
}
