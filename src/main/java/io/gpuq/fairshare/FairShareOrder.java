package io.gpuq.fairshare;

import io.gpuq.placement.PassOrder;
import io.gpuq.placement.PlacementDecision;
import io.gpuq.placement.PlacementRequest;
import java.util.ArrayDeque;
import java.util.Comparator;
import java.util.Deque;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.PriorityQueue;

/**
 * The order of one scheduling pass between owners: the next job examined is the next job of the
 * owner furthest below their share, and each start counts at once against its owner, so that one
 * pass does not give every free place to one owner.
 *
 * <p>An owner's <em>position</em> is {@code (dominant(held) + recent) / share} ({@link
 * Standing#position}); the owner with the lowest goes first, ties going to the owner whose next job
 * was queued earliest, then by owner name. Within an owner, jobs come in the order given: priority
 * (higher first), then submission. A job that does not start leaves its owner first, so their next
 * job is examined (the one that fits gets the place); a job that starts raises its owner's position
 * by what it holds.
 *
 * <p>A job that would take its owner past a running limit ({@link Limits}: what they hold over
 * every node, with what this pass started, and the most this job can hold) is not given to the
 * placer at all: it waits, with the limit as its reason ({@link #limitReached}), and its owner's
 * next job is examined in its place. So an owner at their limit holds up no other owner.
 */
public final class FairShareOrder implements PassOrder {

  /** Positions closer than this are equal: a tie, not a difference of rounding. */
  private static final double RESOLUTION = 1e-9;

  private static final Comparator<Cursor> FIRST =
      (a, b) -> {
        int byRank = Long.compare(a.rank, b.rank);
        if (byRank != 0) {
          return byRank;
        }
        int byWait = a.jobs.peekFirst().queuedSince().compareTo(b.jobs.peekFirst().queuedSince());
        return byWait != 0 ? byWait : a.owner.compareTo(b.owner);
      };

  private final Capacity capacity;
  private final Map<String, Standing> standings;
  private final PriorityQueue<Cursor> owners = new PriorityQueue<>(FIRST);
  private final Map<String, String> ownerOfJob;
  private final Map<String, Cursor> cursors = new HashMap<>();
  private Cursor current;
  // The owners of the pass's latest start, and of the latest start by another owner than that one.
  private String latestStarter;
  private String latestOtherStarter;
  private final Map<String, String> turnGivenTo;
  private final PassLimits limits;
  private final OverShare overShare;
  private final Map<String, Limits.Reached> limited = new HashMap<>();
  private final Map<String, StartLimits.Start> starts = new LinkedHashMap<>();

  /**
   * @param standings each owner's standing; an owner with queued jobs and no standing has share 1
   *     and no usage
   * @param queues each owner's queued jobs, each list in priority, then submission order
   */
  public FairShareOrder(
      Capacity capacity,
      Map<String, Standing> standings,
      Map<String, List<PlacementRequest>> queues) {
    this(capacity, standings, queues, PassLimits.NONE);
  }

  /**
   * @param standings each owner's standing; an owner with queued jobs and no standing has share 1
   *     and no usage
   * @param queues each owner's queued jobs, each list in priority, then submission order
   * @param limits each owner's limits, and what each job holds besides GPUs
   */
  public FairShareOrder(
      Capacity capacity,
      Map<String, Standing> standings,
      Map<String, List<PlacementRequest>> queues,
      PassLimits limits) {
    this(capacity, standings, queues, limits, OverShare.OFF);
  }

  /**
   * @param standings each owner's standing; an owner with queued jobs and no standing has share 1
   *     and no usage
   * @param queues each owner's queued jobs, each list in priority, then submission order
   * @param limits each owner's limits, and what each job holds besides GPUs
   * @param overShare whether a job that may not be preempted must keep its owner within their share
   *     (issue 35); a job it holds back waits as one held back by a running limit
   */
  public FairShareOrder(
      Capacity capacity,
      Map<String, Standing> standings,
      Map<String, List<PlacementRequest>> queues,
      PassLimits limits,
      OverShare overShare) {
    this.overShare = Objects.requireNonNull(overShare, "overShare");
    this.limits = Objects.requireNonNull(limits, "limits");
    this.capacity = Objects.requireNonNull(capacity, "capacity");
    this.standings = new LinkedHashMap<>(standings);
    int jobCount = queues.values().stream().mapToInt(List::size).sum();
    // Sized once: a pass may examine every job it is given, and a map that grows as it goes costs
    // a pass of 10,000 jobs more than its ordering does.
    this.ownerOfJob = new HashMap<>(jobCount * 4 / 3 + 1);
    this.turnGivenTo = new HashMap<>(jobCount * 4 / 3 + 1);
    queues.forEach(
        (owner, jobs) -> {
          if (jobs.isEmpty()) {
            return;
          }
          this.standings.putIfAbsent(owner, Standing.fresh(OwnerTerms.DEFAULT.share()));
          jobs.forEach(job -> ownerOfJob.put(job.jobId(), owner));
          Cursor cursor = new Cursor(owner, new ArrayDeque<>(jobs), rank(owner));
          cursors.put(owner, cursor);
          owners.add(cursor);
        });
  }

  @Override
  public PlacementRequest next() {
    PlacementRequest next;
    do {
      if (current != null && !current.jobs.isEmpty()) {
        if (current.started) {
          // Only a start moves an owner's position: the others keep the rank they had.
          current.rank = rank(current.owner);
          current.started = false;
        }
        owners.add(current);
      }
      current = owners.poll();
      if (current == null) {
        return null;
      }
      next = current.jobs.pollFirst();
    } while (heldBackByLimit(current.owner, next));
    String before = current.owner.equals(latestStarter) ? latestOtherStarter : latestStarter;
    if (before != null) {
      turnGivenTo.put(next.jobId(), before);
    }
    return next;
  }

  @Override
  public void started(PlacementRequest request, PlacementDecision decision) {
    String owner = ownerOfJob.get(request.jobId());
    if (owner != null) {
      Held holds = Held.of(request, decision);
      standings.computeIfPresent(owner, (o, s) -> s.holding(holds));
      cursors.get(owner).started = true;
      starts.put(request.jobId(), new StartLimits.Start(owner, holds));
      if (!owner.equals(latestStarter)) {
        latestOtherStarter = latestStarter;
        latestStarter = owner;
      }
    }
  }

  /**
   * Whether the job would take its owner past a running limit; if so it is noted, with the limit,
   * as held back.
   */
  private boolean heldBackByLimit(String owner, PlacementRequest job) {
    if (overShare.on()
        && overShare.holdsBack(
            job.jobId(),
            standings.get(owner),
            Held.atMost(job, limits.largestGpuBytes()),
            capacity)) {
      limited.put(job.jobId(), OverShare.reached());
      return true;
    }
    Limits ownerLimits = limits.of(owner);
    if (!ownerLimits.limitsRunning()) {
      return false;
    }
    Held atMost = Held.atMost(job, limits.largestGpuBytes());
    Optional<Limits.Reached> reached =
        ownerLimits.reachedBy(standings.get(owner).held(), atMost, capacity);
    reached.ifPresent(limit -> limited.put(job.jobId(), limit));
    return reached.isPresent();
  }

  /**
   * The running limit that held this job back in this pass, if one did: it was never given to the
   * placer.
   */
  public Optional<Limits.Reached> limitReached(String jobId) {
    return Optional.ofNullable(limited.get(jobId));
  }

  /** The jobs held back by a running limit in this pass, and each one's limit. */
  public Map<String, Limits.Reached> limited() {
    return Map.copyOf(limited);
  }

  /**
   * The running limits of the owners of this pass's starts, and what each start holds: for the
   * claim to check again against what every node holds by then.
   */
  public StartLimits startLimits() {
    Map<String, Double> shares = new HashMap<>();
    standings.forEach((owner, standing) -> shares.put(owner, standing.share()));
    return new StartLimits(limits.byOwner(), starts, capacity, overShare, shares);
  }

  /** Each owner's standing as of now: at the pass's end, with what it started. */
  public Map<String, Standing> standings() {
    return Map.copyOf(standings);
  }

  /**
   * The owner whose job started, in this pass, latest before this job was examined, if another
   * owner's: a job that did not start then waited, at least in part, for that owner's turn.
   */
  public Optional<String> turnGivenTo(String jobId) {
    return Optional.ofNullable(turnGivenTo.get(jobId));
  }

  /** The capacity the pass measures shares against. */
  public Capacity capacity() {
    return capacity;
  }

  /** The owner of a job given to this order, or null. */
  public String ownerOf(String jobId) {
    return ownerOfJob.get(jobId);
  }

  private long rank(String owner) {
    return Math.round(standings.get(owner).position(capacity) / RESOLUTION);
  }

  private static final class Cursor {
    final String owner;
    final Deque<PlacementRequest> jobs;
    long rank;
    // Whether the owner started a job since their rank was computed.
    boolean started;

    Cursor(String owner, Deque<PlacementRequest> jobs, long rank) {
      this.owner = owner;
      this.jobs = jobs;
      this.rank = rank;
    }
  }
}
