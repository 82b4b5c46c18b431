package io.gpuq.placement;

import io.gpuq.text.Cpus;
import io.gpuq.text.MemorySize;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * Decides, in one pass, which queued jobs start now on which GPUs of one node. Stateless apart from
 * its policy, so one instance may serve concurrent callers.
 *
 * <h2>Memory</h2>
 *
 * For each GPU, with {@code headroom = policy.headroom().bytesOf(total)}:
 *
 * <ul>
 *   <li>{@code schedulable = max(0, total − headroom)};
 *   <li>{@code used = max(reserved + foreign, measuredUsed)}: gpuq's budgets and memory of
 *       processes gpuq did not start both count, and so does measured use beyond both;
 *   <li>{@code available = max(0, schedulable − used)}.
 * </ul>
 *
 * A GPU is <em>whole-free</em> when {@code reserved == 0} and {@code used <= headroom} (what is
 * measured there is negligible). Budgets per kind of demand:
 *
 * <ul>
 *   <li>{@link MemoryDemand.Bytes}: the bytes; fits a GPU whose {@code available} is at least that.
 *   <li>{@link MemoryDemand.Fraction} f: {@code floor(f × schedulable)} of that GPU; fits if at
 *       least one byte and at most {@code available}.
 *   <li>{@link MemoryDemand.WholeGpu}: fits a whole-free GPU; the budget is its {@code
 *       schedulable}, and nothing else is placed there while it runs.
 * </ul>
 *
 * A job of N GPUs gets N distinct GPUs at once or none (gang placement); its decision carries one
 * budget, the smallest among its GPUs (they differ only on a node with GPUs of different sizes),
 * and that budget is reserved on each. Decisions of one pass count against each other as they are
 * made. A CPU-only job ({@code gpus == 0}) takes one of the free CPU slots and no GPU.
 *
 * <h2>Cores and host memory</h2>
 *
 * Every job, CPU-only or not, takes {@code cpus} cores and {@code hostMemoryBytes} of host memory
 * ({@link HostCapacity}: the node's allocatable less what its jobs hold). A job starts only when
 * its GPUs, its cores and its memory all fit; its start counts at once against what is left for the
 * rest of the pass, and a job that lacks any of them takes none (a gang gets everything or
 * nothing). A job that lacks cores or memory is told so ({@link Wait.NoCores}, {@link
 * Wait.NoHostMemory}; cores first) without its GPUs being scanned. A request asking for more cores
 * or memory than the node gives its jobs could never start here.
 *
 * <h2>Which GPUs</h2>
 *
 * Best fit: among the GPUs a job fits, memory-budget jobs take those that are not whole-free first,
 * then those with the least {@code available}, then the lowest position in the GPU list. Whole-free
 * GPUs are thus kept for whole-GPU jobs as long as possible. Whole-GPU jobs take the whole-free
 * GPUs with the least schedulable memory first.
 *
 * <h2>Order, backfill and reservation</h2>
 *
 * Jobs are examined in the order of the pass's {@link PassOrder}, which hears of each start as it
 * is decided and may change what comes next (gpuq's scheduler orders owners by fair share, each
 * owner's jobs by priority); {@link #plan(List, int, List, Instant)} examines them in {@link
 * #QUEUE_ORDER}: priority (higher first), then sequence, then job id. GPU jobs and CPU-only jobs
 * are examined side by side, each at most {@code lookahead} per pass, and meet only in the cores
 * and host memory both take; CPU-only jobs fill the free slots in order, as far as their cores and
 * memory fit. Requests that could never start on this node do not count towards the lookahead.
 *
 * <p>A GPU job that does not fit now is <em>blocked</em>; later, smaller jobs may start past it
 * (backfill). Requests that could never start on this node (see {@link #feasibility}) are skipped:
 * they are never placed and never block anything. The <em>reservation</em> rule bounds how long a
 * job is passed by:
 *
 * <blockquote>
 *
 * The first blocked GPU job of the pass that could start once every gpuq job on the node had
 * finished (memory of other processes still counted) is the pass's <em>head</em>. If the head has
 * waited at least {@code maxWaitBeforeReservation} ({@code now − queuedSince}), no GPU job after it
 * in the order starts in this pass.
 *
 * </blockquote>
 *
 * CPU-only jobs have a head of their own, by the same rule. A head that lacks cores or host memory,
 * which every job takes, holds back the later jobs of both kinds, not only its own: otherwise small
 * jobs of the other kind could take the cores it waits for forever. A head that lacks only GPU
 * memory holds back only GPU jobs; should CPU-only jobs take the cores meanwhile, it lacks cores at
 * a later pass and then holds back both, so its wait is bounded by about two runs past the bound
 * below rather than one.
 *
 * <p>Blocked jobs that cannot start until foreign processes release memory never hold a
 * reservation, since holding GPUs back would not help them. Consequently a job that is the first
 * waiting feasible GPU job in the order from instant {@code h} on, and keeps that place, starts no
 * later than {@code max(h, queuedSince + maxWait) + max(longest run, startSpacing)} plus two pass
 * intervals (on a node whose cores and host memory do not run out; one run more where they do),
 * provided foreign processes leave it room: from then on nothing new starts on the GPUs, the
 * running jobs end, and it fits an empty node. It loses that place only to jobs the order puts
 * before it: of higher priority, or, in fair-share order, of owners whose usage has fallen below
 * its owner's (each start raises its owner's usage, so they cannot pass it forever).
 *
 * <h2>Start spacing</h2>
 *
 * A GPU with {@code lastStartAt + startSpacing > now} takes no job in this pass; a GPU that gets a
 * job in this pass counts as started now, so with spacing at most one job starts per GPU per pass.
 * When spacing held back a job that would otherwise have fitted, the plan's {@code retryAt} is the
 * earliest instant at which one of the GPUs that held it back becomes eligible.
 *
 * <h2>Cost</h2>
 *
 * One sort of the queue (linear when it arrives already in {@link #QUEUE_ORDER}), then at most
 * {@code O(gpus)} work and no allocation per examined job; a job that certainly does not fit costs
 * {@code O(1)} (k-th largest available memory, whole-free GPU counts). Allocation happens per
 * started job, with an {@code O(gpus log gpus)} refresh of those bounds.
 */
public final class Placer {

  /** Priority, higher first; then sequence, lower first; then job id. */
  public static final Comparator<PlacementRequest> QUEUE_ORDER = Placer::compareQueueOrder;

  private static final Wait NO_CPU_SLOT = new Wait.NoCpuSlot();

  private final PlacementPolicy policy;

  public Placer(PlacementPolicy policy) {
    this.policy = Objects.requireNonNull(policy, "policy");
  }

  public PlacementPolicy policy() {
    return policy;
  }

  /**
   * One placement pass on a node whose cores and host memory never run out.
   *
   * @param gpus the node's GPUs as measured now; indices must be distinct
   * @param freeCpuSlots how many CPU-only jobs may start now
   * @param queue waiting jobs, in any order
   */
  public PlacementPlan plan(
      List<GpuCapacity> gpus, int freeCpuSlots, List<PlacementRequest> queue, Instant now) {
    return plan(gpus, freeCpuSlots, HostCapacity.UNLIMITED, PassOrder.queueOrder(queue), now);
  }

  /** One pass in queue order on a node with these cores and this host memory. */
  public PlacementPlan plan(
      List<GpuCapacity> gpus,
      int freeCpuSlots,
      HostCapacity host,
      List<PlacementRequest> queue,
      Instant now) {
    return plan(gpus, freeCpuSlots, host, PassOrder.queueOrder(queue), now);
  }

  /**
   * One placement pass that examines the jobs in the order {@code order} gives, telling it of each
   * start as it is decided; cores and host memory never run out.
   */
  public PlacementPlan plan(
      List<GpuCapacity> gpus, int freeCpuSlots, PassOrder order, Instant now) {
    return plan(gpus, freeCpuSlots, HostCapacity.UNLIMITED, order, now);
  }

  /**
   * One placement pass that examines the jobs in the order {@code order} gives, telling it of each
   * start as it is decided.
   *
   * @param host the node's cores and host memory, and what the jobs there now hold of them
   */
  public PlacementPlan plan(
      List<GpuCapacity> gpus, int freeCpuSlots, HostCapacity host, PassOrder order, Instant now) {
    Objects.requireNonNull(now, "now");
    Objects.requireNonNull(order, "order");
    Objects.requireNonNull(host, "host");
    if (freeCpuSlots < 0) {
      throw new IllegalArgumentException("freeCpuSlots must not be negative: " + freeCpuSlots);
    }
    return new Pass(gpus, host, now).run(order, freeCpuSlots);
  }

  /**
   * Whether the request could start on a node with these GPUs if nothing else ran there; cores and
   * host memory are not counted.
   */
  public Feasibility feasibility(PlacementRequest request, List<GpuCapacity> gpusOfThisNode) {
    return feasibility(request, gpusOfThisNode, HostCapacity.UNLIMITED);
  }

  /**
   * Whether the request could start on a node with these GPUs and these allocatable cores and host
   * memory if nothing else ran there (what {@code host} says is taken is not counted).
   */
  public Feasibility feasibility(
      PlacementRequest request, List<GpuCapacity> gpusOfThisNode, HostCapacity host) {
    long[] schedulableDescending = schedulableDescending(gpusOfThisNode);
    if (fitsEmptyNode(request, schedulableDescending, host)) {
      return Feasibility.FEASIBLE;
    }
    return new Feasibility.Infeasible(whyNot(request, schedulableDescending, host));
  }

  private long schedulable(long totalBytes) {
    return Math.max(0, totalBytes - policy.headroom().bytesOf(totalBytes));
  }

  private long[] schedulableDescending(List<GpuCapacity> gpus) {
    long[] result = new long[gpus.size()];
    for (int i = 0; i < result.length; i++) {
      result[i] = -schedulable(gpus.get(i).totalBytes());
    }
    Arrays.sort(result);
    for (int i = 0; i < result.length; i++) {
      result[i] = -result[i];
    }
    return result;
  }

  /**
   * Every demand is monotone in a GPU's schedulable memory, so a k-GPU request fits an empty node
   * exactly when it fits the k-th largest GPU.
   */
  private static boolean fitsEmptyNode(
      PlacementRequest r, long[] schedulableDescending, HostCapacity host) {
    return fitsHostOnceEmpty(r, host) && fitsGpusOnceEmpty(r, schedulableDescending);
  }

  private static boolean fitsHostOnceEmpty(PlacementRequest r, HostCapacity host) {
    return r.cpus().compareTo(host.allocatable()) <= 0
        && r.hostMemoryBytes() <= host.allocatableMemoryBytes();
  }

  private static boolean fitsGpusOnceEmpty(PlacementRequest r, long[] schedulableDescending) {
    int k = r.gpus();
    if (k == 0) {
      return true;
    }
    if (k > schedulableDescending.length) {
      return false;
    }
    long kthLargest = schedulableDescending[k - 1];
    MemoryDemand memory = r.memory();
    if (memory instanceof MemoryDemand.Bytes b) {
      return b.bytes() > 0 && b.bytes() <= kthLargest;
    }
    if (memory instanceof MemoryDemand.Fraction f) {
      return validFraction(f.fraction()) && fractionBudget(f.fraction(), kthLargest) >= 1;
    }
    return kthLargest > 0;
  }

  /** Why a request that does not fit the empty node does not: its GPUs first, then the host. */
  private String whyNot(PlacementRequest r, long[] schedulableDescending, HostCapacity host) {
    if (fitsGpusOnceEmpty(r, schedulableDescending)) {
      return r.cpus().compareTo(host.allocatable()) > 0
          ? "asks for " + r.cpus().text() + ", this node gives its jobs " + host.allocatableCpus()
          : "asks for "
              + MemorySize.format(r.hostMemoryBytes())
              + " of host memory, this node gives its jobs "
              + MemorySize.format(host.allocatableMemoryBytes());
    }
    return whyNotOnGpus(r, schedulableDescending);
  }

  private String whyNotOnGpus(PlacementRequest r, long[] schedulableDescending) {
    int k = r.gpus();
    int n = schedulableDescending.length;
    if (k > n) {
      return "asks for " + gpusText(k) + ", this node has " + n;
    }
    MemoryDemand memory = r.memory();
    if (memory instanceof MemoryDemand.Bytes b) {
      if (b.bytes() <= 0) {
        return "asks for a GPU memory budget of " + b.bytes() + " bytes; it must be positive";
      }
      if (schedulableDescending[0] < b.bytes()) {
        return "asks for "
            + MemorySize.format(b.bytes())
            + " per GPU, the largest GPU here schedules "
            + MemorySize.format(schedulableDescending[0])
            + " (its memory minus headroom)";
      }
      return "asks for "
          + MemorySize.format(b.bytes())
          + " on each of "
          + gpusText(k)
          + ", only "
          + countAtLeast(schedulableDescending, b.bytes())
          + " of this node's GPUs schedule that much (memory minus headroom)";
    }
    if (memory instanceof MemoryDemand.Fraction f && !validFraction(f.fraction())) {
      return "asks for a GPU memory fraction of " + f.fraction() + "; it must lie in (0, 1]";
    }
    long withMemory = countAtLeast(schedulableDescending, 1);
    if (withMemory < k) {
      return "asks for "
          + gpusText(k)
          + ", only "
          + withMemory
          + " of this node's GPUs have memory left after the headroom";
    }
    return "asks for a GPU memory fraction of "
        + ((MemoryDemand.Fraction) memory).fraction()
        + ", less than one byte on this node's GPUs";
  }

  private static long countAtLeast(long[] descending, long bytes) {
    return Arrays.stream(descending).filter(s -> s >= bytes).count();
  }

  private static String gpusText(int k) {
    return k == 1 ? "1 GPU" : k + " GPUs";
  }

  private static boolean validFraction(double f) {
    return f > 0 && f <= 1;
  }

  private static long fractionBudget(double fraction, long schedulable) {
    return (long) Math.floor(fraction * schedulable);
  }

  private static int compareQueueOrder(PlacementRequest a, PlacementRequest b) {
    int byPriority = Integer.compare(b.priority(), a.priority());
    if (byPriority != 0) {
      return byPriority;
    }
    int bySequence = Long.compare(a.sequence(), b.sequence());
    return bySequence != 0 ? bySequence : a.jobId().compareTo(b.jobId());
  }

  /** The node as it evolves during one pass; GPUs are addressed by position in the input list. */
  private final class Pass {
    private final Instant now;
    private final int n;
    private final int[] index;
    private final String[] uuid;
    private final long[] total;
    private final long[] schedulable;
    private final long[] available;
    private final boolean[] wholeFree;
    private final long[] availableOnceDrained;
    private final boolean[] wholeFreeOnceDrained;
    private final boolean[] spaced;
    private final Instant[] eligibleAt;
    private final long[] schedulableDescending;
    private final int[] chosen;
    private final boolean spacing;
    private final HostCapacity host;
    // Cores and host memory left free by the starts decided so far.
    private Cpus freeCpus;
    private long freeMemory;
    private Instant retryAt;
    // The GPU whose start spacing held back the job just examined, or -1: its Wait.
    private int heldBySpacingOn;

    // Necessary conditions for a fit, so that most blocked jobs cost O(1) rather than a scan of
    // the GPUs; refreshed after each placement. Ascending; "eligible" leaves out spaced GPUs.
    private final long[] availableEligible;
    private final long[] availableAny;
    private final double[] fractionCeilingEligible;
    private final double[] fractionCeilingAny;
    private int eligibleCount;
    private int wholeFreeEligible;
    private int wholeFreeAny;
    private Instant earliestEligibleAny;

    Pass(List<GpuCapacity> gpus, HostCapacity host, Instant now) {
      this.now = now;
      this.host = host;
      freeCpus = host.freeCpus();
      freeMemory = host.freeMemoryBytes();
      n = gpus.size();
      index = new int[n];
      uuid = new String[n];
      total = new long[n];
      schedulable = new long[n];
      available = new long[n];
      wholeFree = new boolean[n];
      availableOnceDrained = new long[n];
      wholeFreeOnceDrained = new boolean[n];
      spaced = new boolean[n];
      eligibleAt = new Instant[n];
      chosen = new int[n];
      Duration startSpacing = policy.startSpacing();
      spacing = !startSpacing.isZero();
      for (int g = 0; g < n; g++) {
        GpuCapacity gpu = gpus.get(g);
        long headroom = policy.headroom().bytesOf(gpu.totalBytes());
        long used =
            Math.max(
                saturatedAdd(gpu.reservedBytes(), gpu.foreignUsedBytes()), gpu.measuredUsedBytes());
        index[g] = gpu.index();
        uuid[g] = gpu.uuid();
        total[g] = gpu.totalBytes();
        schedulable[g] = schedulable(gpu.totalBytes());
        available[g] = Math.max(0, schedulable[g] - used);
        wholeFree[g] = gpu.reservedBytes() == 0 && used <= headroom;
        availableOnceDrained[g] = Math.max(0, schedulable[g] - gpu.foreignUsedBytes());
        wholeFreeOnceDrained[g] = gpu.foreignUsedBytes() <= headroom;
        if (spacing && gpu.lastStartAt() != null) {
          eligibleAt[g] = gpu.lastStartAt().plus(startSpacing);
          spaced[g] = eligibleAt[g].isAfter(now);
        }
      }
      requireDistinct(index);
      schedulableDescending = schedulableDescending(gpus);
      availableEligible = new long[n];
      availableAny = new long[n];
      fractionCeilingEligible = new double[n];
      fractionCeilingAny = new double[n];
      refreshBounds();
    }

    PlacementPlan run(PassOrder order, int freeCpuSlots) {
      List<PlacementDecision> starts = new ArrayList<>();
      List<PlacementRequest> examined = new ArrayList<>();
      List<Wait> waits = new ArrayList<>();
      int lookahead = policy.lookahead();
      int cpuSlotsLeft = Math.min(freeCpuSlots, lookahead);
      Lane gpuLane = new Lane(lookahead);
      Lane cpuLane = new Lane(lookahead);
      while (gpuLane.open() || cpuLane.open()) {
        PlacementRequest r = order.next();
        if (r == null) {
          break;
        }
        int i = examined.size();
        examined.add(r);
        waits.add(null);
        Lane lane = r.isCpuOnly() ? cpuLane : gpuLane;
        if (!fitsEmptyNode(r, schedulableDescending, host)) {
          if (lane.open()) {
            waits.set(i, new Wait.NeverHere(whyNot(r, schedulableDescending, host)));
          }
          continue;
        }
        if (lane.left == 0) {
          waits.set(i, lane.nameAsReserved());
          continue;
        }
        lane.left--;
        Wait wait = hostWait(r);
        if (r.isCpuOnly()) {
          if (cpuSlotsLeft == 0) {
            // Slots are alike: a job held back by the cap holds nothing for later ones.
            waits.set(i, NO_CPU_SLOT);
            continue;
          }
          if (wait == null) {
            cpuSlotsLeft--;
            takeHost(r);
            PlacementDecision decision = PlacementDecision.cpuOnly(r.jobId());
            starts.add(decision);
            order.started(r, decision);
            continue;
          }
        } else if (wait == null) {
          heldBySpacingOn = -1;
          long budget = worthScanning(r) ? choose(r) : 0;
          if (budget > 0) {
            takeHost(r);
            PlacementDecision decision = place(r, budget);
            starts.add(decision);
            order.started(r, decision);
            refreshBounds();
            continue;
          }
          wait =
              heldBySpacingOn >= 0
                  ? new Wait.StartSpacing(heldBySpacingOn)
                  : new Wait.NoRoom(r.gpus(), bytesPerGpu(r));
        }
        waits.set(i, wait);
        if (!lane.headFound && couldStartOnceDrained(r)) {
          lane.headFound = true;
          if (!r.queuedSince().plus(policy.maxWaitBeforeReservation()).isAfter(now)) {
            // Short of cores or host memory, which every job takes: both lanes wait for it.
            boolean hostShort = wait instanceof Wait.NoCores || wait instanceof Wait.NoHostMemory;
            Wait reserved = new Wait.ReservedFor(r.jobId(), hostShort);
            lane.reserve(reserved);
            if (hostShort) {
              (lane == gpuLane ? cpuLane : gpuLane).reserve(reserved);
            }
          }
        }
      }
      return new PlacementPlan(
          starts,
          Optional.ofNullable(retryAt),
          new Waits(examined.toArray(new PlacementRequest[0]), waits.toArray(new Wait[0])),
          mostFree(),
          freeCpus,
          freeMemory);
    }

    /** Why {@code r} does not fit the cores and host memory left now; null when it does. */
    private Wait hostWait(PlacementRequest r) {
      if (r.cpus().compareTo(freeCpus) > 0) {
        return new Wait.NoCores(r.cpus(), freeCpus);
      }
      if (r.hostMemoryBytes() > freeMemory) {
        return new Wait.NoHostMemory(r.hostMemoryBytes(), freeMemory);
      }
      return null;
    }

    private void takeHost(PlacementRequest r) {
      freeCpus = freeCpus.less(r.cpus());
      freeMemory -= r.hostMemoryBytes();
    }

    /** What a job needs on each GPU, for a person: -1 for a whole GPU. */
    private long bytesPerGpu(PlacementRequest r) {
      MemoryDemand memory = r.memory();
      if (memory instanceof MemoryDemand.Bytes b) {
        return b.bytes();
      }
      if (memory instanceof MemoryDemand.Fraction f) {
        return fractionBudget(f.fraction(), schedulableDescending[0]);
      }
      return -1;
    }

    private PlacementPlan.FreeGpu mostFree() {
      int best = -1;
      for (int g = 0; g < n; g++) {
        if (best < 0 || available[g] > available[best]) {
          best = g;
        }
      }
      return best < 0 ? null : new PlacementPlan.FreeGpu(index[best], available[best]);
    }

    /**
     * Picks the GPUs for {@code r} into {@code chosen[0..r.gpus())}, best first.
     *
     * @return the per-GPU budget, or 0 when the job does not fit now
     */
    private long choose(PlacementRequest r) {
      int k = r.gpus();
      MemoryDemand memory = r.memory();
      boolean whole = memory instanceof MemoryDemand.WholeGpu;
      long bytes = memory instanceof MemoryDemand.Bytes b ? b.bytes() : 0;
      double fraction = memory instanceof MemoryDemand.Fraction f ? f.fraction() : 0;
      int found = 0;
      int heldBySpacing = 0;
      int spacedFit = -1;
      Instant earliestEligible = null;
      for (int g = 0; g < n; g++) {
        boolean fits;
        if (whole) {
          fits = wholeFree[g] && schedulable[g] > 0;
        } else {
          long need = fraction > 0 ? fractionBudget(fraction, schedulable[g]) : bytes;
          fits = need >= 1 && need <= available[g];
        }
        if (!fits) {
          continue;
        }
        if (spaced[g]) {
          heldBySpacing++;
          if (earliestEligible == null || eligibleAt[g].isBefore(earliestEligible)) {
            earliestEligible = eligibleAt[g];
            spacedFit = g;
          }
          continue;
        }
        int pos;
        if (found < k) {
          pos = found++;
        } else if (better(g, chosen[k - 1], whole)) {
          pos = k - 1;
        } else {
          continue;
        }
        while (pos > 0 && better(g, chosen[pos - 1], whole)) {
          chosen[pos] = chosen[pos - 1];
          pos--;
        }
        chosen[pos] = g;
      }
      if (found < k) {
        if (found + heldBySpacing >= k) {
          heldBySpacingOn = index[spacedFit];
          if (retryAt == null || earliestEligible.isBefore(retryAt)) {
            retryAt = earliestEligible;
          }
        }
        return 0;
      }
      long budget = Long.MAX_VALUE;
      for (int i = 0; i < k; i++) {
        int g = chosen[i];
        long onThisGpu =
            whole
                ? schedulable[g]
                : fraction > 0 ? fractionBudget(fraction, schedulable[g]) : bytes;
        budget = Math.min(budget, onThisGpu);
      }
      return budget;
    }

    /**
     * False only when {@link #choose} would certainly find no fit and could not move {@code
     * retryAt} earlier. Availability only shrinks during a pass, so the bounds stay valid.
     */
    private boolean worthScanning(PlacementRequest r) {
      return mayFit(r, true) || (mayFit(r, false) && !retryAtSettled());
    }

    /** retryAt already names the earliest instant any spaced GPU becomes eligible. */
    private boolean retryAtSettled() {
      return retryAt != null && !retryAt.isAfter(earliestEligibleAny);
    }

    private boolean mayFit(PlacementRequest r, boolean eligibleOnly) {
      int k = r.gpus();
      int count = eligibleOnly ? eligibleCount : n;
      if (k > count) {
        return false;
      }
      MemoryDemand memory = r.memory();
      if (memory instanceof MemoryDemand.Bytes b) {
        return b.bytes() <= (eligibleOnly ? availableEligible : availableAny)[count - k];
      }
      if (memory instanceof MemoryDemand.Fraction f) {
        return f.fraction()
            <= (eligibleOnly ? fractionCeilingEligible : fractionCeilingAny)[count - k];
      }
      return (eligibleOnly ? wholeFreeEligible : wholeFreeAny) >= k;
    }

    private void refreshBounds() {
      eligibleCount = 0;
      wholeFreeEligible = 0;
      wholeFreeAny = 0;
      earliestEligibleAny = null;
      for (int g = 0; g < n; g++) {
        // floor(f × schedulable) <= available implies f < (available + 1) / schedulable; the
        // margin absorbs rounding, keeping the bound a necessary condition.
        double ceiling =
            schedulable[g] == 0 ? 0 : (available[g] + 1.0) / schedulable[g] * (1 + 1e-9);
        boolean whole = wholeFree[g] && schedulable[g] > 0;
        availableAny[g] = available[g];
        fractionCeilingAny[g] = ceiling;
        wholeFreeAny += whole ? 1 : 0;
        if (spaced[g]) {
          if (earliestEligibleAny == null || eligibleAt[g].isBefore(earliestEligibleAny)) {
            earliestEligibleAny = eligibleAt[g];
          }
        } else {
          availableEligible[eligibleCount] = available[g];
          fractionCeilingEligible[eligibleCount] = ceiling;
          wholeFreeEligible += whole ? 1 : 0;
          eligibleCount++;
        }
      }
      Arrays.sort(availableAny);
      Arrays.sort(fractionCeilingAny);
      Arrays.sort(availableEligible, 0, eligibleCount);
      Arrays.sort(fractionCeilingEligible, 0, eligibleCount);
    }

    private boolean better(int a, int b, boolean whole) {
      if (whole) {
        int bySize = Long.compare(schedulable[a], schedulable[b]);
        return bySize != 0 ? bySize < 0 : a < b;
      }
      if (wholeFree[a] != wholeFree[b]) {
        return !wholeFree[a];
      }
      int byAvailable = Long.compare(available[a], available[b]);
      return byAvailable != 0 ? byAvailable < 0 : a < b;
    }

    private PlacementDecision place(PlacementRequest r, long budget) {
      int k = r.gpus();
      boolean whole = r.memory() instanceof MemoryDemand.WholeGpu;
      PlacedGpu[] placed = new PlacedGpu[k];
      for (int i = 0; i < k; i++) {
        int g = chosen[i];
        available[g] = whole ? 0 : available[g] - budget;
        wholeFree[g] = false;
        if (spacing) {
          spaced[g] = true;
          eligibleAt[g] = now.plus(policy.startSpacing());
        }
        placed[i] = new PlacedGpu(index[g], uuid[g], budget, total[g]);
      }
      Arrays.sort(placed, Comparator.comparingInt(PlacedGpu::index));
      return new PlacementDecision(r.jobId(), List.of(placed));
    }

    /**
     * Whether {@code r} would fit if every gpuq job here ended: only foreign memory stays. Its
     * cores and host memory then fit, as it fits the empty node.
     */
    private boolean couldStartOnceDrained(PlacementRequest r) {
      MemoryDemand memory = r.memory();
      int fitting = 0;
      for (int g = 0; g < n && fitting < r.gpus(); g++) {
        boolean fits;
        if (memory instanceof MemoryDemand.Bytes b) {
          fits = b.bytes() <= availableOnceDrained[g];
        } else if (memory instanceof MemoryDemand.Fraction f) {
          long need = fractionBudget(f.fraction(), schedulable[g]);
          fits = need >= 1 && need <= availableOnceDrained[g];
        } else {
          fits = wholeFreeOnceDrained[g] && schedulable[g] > 0;
        }
        if (fits) {
          fitting++;
        }
      }
      return fitting >= r.gpus();
    }
  }

  /**
   * One kind of job in a pass, GPU or CPU-only: each is examined up to the lookahead, and each has
   * its own head, whose reservation holds back the later jobs of its kind (and of the other kind
   * too when it waits for cores or host memory, which both take).
   */
  private static final class Lane {
    private int left;
    private boolean headFound;
    private Wait reserved;
    // The jobs after a reservation's head are named as waiting for it, up to the lookahead they
    // would have been examined in.
    private int named;

    Lane(int lookahead) {
      left = lookahead;
    }

    boolean open() {
      return left > 0 || reserved != null;
    }

    /** Nothing more of this lane starts in the pass; what is left of its lookahead waits. */
    void reserve(Wait reservation) {
      if (left > 0) {
        named = left;
        reserved = reservation;
        left = 0;
      }
    }

    /** The reservation a job past the lane's end waits for, or null when it was not examined. */
    Wait nameAsReserved() {
      Wait wait = reserved;
      if (reserved != null && --named == 0) {
        reserved = null;
      }
      return wait;
    }
  }

  private static void requireDistinct(int[] indices) {
    int[] sorted = indices.clone();
    Arrays.sort(sorted);
    for (int i = 1; i < sorted.length; i++) {
      if (sorted[i] == sorted[i - 1]) {
        throw new IllegalArgumentException("GPU index " + sorted[i] + " appears twice");
      }
    }
  }

  private static long saturatedAdd(long a, long b) {
    long sum = a + b;
    return sum < 0 ? Long.MAX_VALUE : sum;
  }
}
