package io.gpuq.fairshare;

import io.gpuq.placement.MemoryDemand;
import io.gpuq.text.MemorySize;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/**
 * What one owner may hold and queue at once, over every node: the same on each of their tokens.
 *
 * @param maxRunningJobs running jobs, CPU-only ones included; {@link Long#MAX_VALUE} for no limit
 * @param maxGpus GPUs held, whole GPUs and fractions added up ({@link Held#gpus}); {@link
 *     Double#POSITIVE_INFINITY} for no limit
 * @param maxGpuMemoryBytes GPU memory held, every running GPU job's budget on each of its GPUs
 *     added up; {@link Long#MAX_VALUE} for no limit
 * @param maxQueuedJobs queued jobs, sweeps' trials included: past it a submission is refused (429)
 *     rather than made to wait
 */
public record Limits(
    long maxRunningJobs, double maxGpus, long maxGpuMemoryBytes, long maxQueuedJobs) {

  /**
   * The default of {@code max-queued-jobs}: one client (a runaway loop, a script that submits
   * without end) cannot fill the database, at about a kilobyte a queued job, while the largest
   * sweep ({@code SweepLimits.MAX_TRIALS}, 10,000 trials) still fits an owner with nothing queued.
   */
  public static final long DEFAULT_MAX_QUEUED_JOBS = 10_000;

  public static final long UNLIMITED = Long.MAX_VALUE;

  /** No running limit, and the default queued limit. */
  public static final Limits DEFAULT =
      new Limits(UNLIMITED, Double.POSITIVE_INFINITY, UNLIMITED, DEFAULT_MAX_QUEUED_JOBS);

  public Limits {
    if (maxRunningJobs < 0 || !(maxGpus >= 0) || maxGpuMemoryBytes < 0 || maxQueuedJobs < 0) {
      throw new IllegalArgumentException("limits must not be negative");
    }
  }

  /**
   * From the configuration's values, each null for its default.
   *
   * @param maxGpuMemory a size ("40GiB")
   */
  public static Limits of(
      Long maxRunningJobs, Double maxGpus, String maxGpuMemory, Long maxQueuedJobs) {
    return new Limits(
        maxRunningJobs == null ? UNLIMITED : maxRunningJobs,
        maxGpus == null ? Double.POSITIVE_INFINITY : maxGpus,
        maxGpuMemory == null || maxGpuMemory.isBlank() ? UNLIMITED : MemorySize.parse(maxGpuMemory),
        maxQueuedJobs == null ? DEFAULT_MAX_QUEUED_JOBS : maxQueuedJobs);
  }

  /** Whether any limit counts what the owner holds: if none does, a pass need not read it. */
  public boolean limitsRunning() {
    return maxRunningJobs != UNLIMITED
        || !Double.isInfinite(maxGpus)
        || maxGpuMemoryBytes != UNLIMITED;
  }

  /** Each limit by its configuration key, as the agreement between tokens compares them. */
  Map<String, String> byKey() {
    Map<String, String> limits = new LinkedHashMap<>();
    limits.put("max-running-jobs", count(maxRunningJobs));
    limits.put("max-gpus", Double.isInfinite(maxGpus) ? "unlimited" : OwnerTerms.number(maxGpus));
    limits.put(
        "max-gpu-memory",
        maxGpuMemoryBytes == UNLIMITED ? "unlimited" : MemorySize.format(maxGpuMemoryBytes));
    limits.put("max-queued-jobs", count(maxQueuedJobs));
    return limits;
  }

  private static String count(long value) {
    return value == UNLIMITED ? "unlimited" : Long.toString(value);
  }

  /**
   * The first running limit that {@code held} plus {@code more} would pass, if any: {@code held} is
   * what the owner holds now (with what this pass started), {@code more} what the job would hold at
   * most.
   *
   * @param capacity the cluster's, for the GPUs a job asking for bytes counts as ({@link
   *     Held#gpus})
   */
  public Optional<Reached> reachedBy(Held held, Held more, Capacity capacity) {
    if (held.jobs() + more.jobs() > maxRunningJobs) {
      return Optional.of(new Reached("max-running-jobs", maxRunningJobs));
    }
    double gpus = held.gpus(capacity) + more.gpus(capacity);
    // A little slack for the rounding of added fractions: ten 0.1s are one GPU.
    if (more.gpus(capacity) > 0 && gpus > maxGpus + 1e-9) {
      return Optional.of(new Reached("max-gpus", maxGpus));
    }
    if (more.gpuMemoryBytes() > 0
        && held.gpuMemoryBytes() + more.gpuMemoryBytes() > maxGpuMemoryBytes) {
      return Optional.of(new Reached("max-gpu-memory", maxGpuMemoryBytes));
    }
    return Optional.empty();
  }

  /**
   * The running limit that a job of {@code gpus} GPUs of {@code memory} each would pass on its own,
   * with nothing else of its owner's running: one that could never start under these limits, and
   * that admission refuses rather than queues for ever (issue 34). Only what the job is sure to
   * hold counts: a whole-GPU or fraction job's GPU memory, and the GPUs that bytes ask for, depend
   * on the GPU it gets, and are held to their limits when it is placed.
   */
  public Optional<Reached> neverAllows(int gpus, MemoryDemand memory) {
    if (maxRunningJobs < 1) {
      return Optional.of(new Reached("max-running-jobs", maxRunningJobs));
    }
    if (gpus == 0) {
      return Optional.empty();
    }
    double held =
        memory instanceof MemoryDemand.WholeGpu
            ? gpus
            : memory instanceof MemoryDemand.Fraction f ? gpus * f.fraction() : 0;
    // The slack of reachedBy: what a pass would let start, admission lets queue. A limit of none
    // refuses every GPU job, whatever its GPU.
    if (held > maxGpus + 1e-9 || maxGpus == 0) {
      return Optional.of(new Reached("max-gpus", maxGpus));
    }
    // bytes × gpus > max, without overflow.
    if (maxGpuMemoryBytes == 0
        || (memory instanceof MemoryDemand.Bytes b && b.bytes() > maxGpuMemoryBytes / gpus)) {
      return Optional.of(new Reached("max-gpu-memory", maxGpuMemoryBytes));
    }
    return Optional.empty();
  }

  /**
   * A running limit that holds a job back.
   *
   * @param key its configuration key
   * @param value its value, in its unit (jobs, GPUs, bytes)
   */
  public record Reached(String key, double value) {

    /** For the job's {@code queuedReason}: {@code at your limit of 4 GPUs (max-gpus)}. */
    public String reason() {
      if (key.equals(OverShare.KEY)) {
        return OverShare.REASON;
      }
      String amount =
          switch (key) {
            case "max-running-jobs" -> count((long) value, "running job", "running jobs");
            case "max-gpus" -> OwnerTerms.number(value) + (value == 1 ? " GPU" : " GPUs");
            case "max-gpu-memory" -> MemorySize.format((long) value) + " of GPU memory";
            default -> OwnerTerms.number(value);
          };
      return "at your limit of " + amount + " (" + key + ")";
    }

    private static String count(long n, String one, String many) {
      return n + " " + (n == 1 ? one : many);
    }
  }
}
