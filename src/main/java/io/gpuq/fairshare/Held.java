package io.gpuq.fairshare;

import io.gpuq.placement.MemoryDemand;
import io.gpuq.placement.PlacedGpu;
import io.gpuq.placement.PlacementDecision;
import io.gpuq.placement.PlacementRequest;
import io.gpuq.text.Cpus;

/**
 * What an owner's running jobs hold, over every node: the numerators of their dominant share and
 * the figures their limits count.
 *
 * @param gpuMemoryBytes the budgets of their GPU jobs, on each of their GPUs, added up (a whole-GPU
 *     job's budget is the GPU's schedulable memory)
 * @param wholeGpus the GPUs held by whole-GPU jobs, which nothing else may share
 * @param cpuSlots their running CPU-only jobs, one slot each
 * @param cores the cores their jobs were given ({@code resources.cpus}), every job's, fractions
 *     added up exactly
 * @param hostMemoryBytes the host memory reserved for their jobs ({@code resources.memory}); a job
 *     that reserved none counts none
 * @param jobs their running jobs
 * @param gpuFractions the GPUs of jobs that ask for a {@code gpuFraction}, each counted as that
 *     fraction
 * @param askedGpuBytes the GPU memory asked for by jobs that ask for a {@code gpuMemory} size, on
 *     each of their GPUs: counted in GPUs as a share of the cluster's average GPU ({@link #gpus})
 */
public record Held(
    long gpuMemoryBytes,
    long wholeGpus,
    long cpuSlots,
    Cpus cores,
    long hostMemoryBytes,
    long jobs,
    double gpuFractions,
    long askedGpuBytes) {

  public static final Held NONE = new Held(0, 0, 0, Cpus.ZERO, 0, 0, 0, 0);

  public Held {
    if (gpuMemoryBytes < 0
        || wholeGpus < 0
        || cpuSlots < 0
        || cores == null
        || hostMemoryBytes < 0
        || jobs < 0
        || !(gpuFractions >= 0)
        || askedGpuBytes < 0) {
      throw new IllegalArgumentException("held resources must not be negative");
    }
  }

  /** GPU memory, whole GPUs and CPU slots only: as fair share counted before cores and memory. */
  public Held(long gpuMemoryBytes, long wholeGpus, long cpuSlots) {
    this(gpuMemoryBytes, wholeGpus, cpuSlots, Cpus.ZERO, 0, 0, 0, 0);
  }

  public Held plus(Held other) {
    return new Held(
        gpuMemoryBytes + other.gpuMemoryBytes,
        wholeGpus + other.wholeGpus,
        cpuSlots + other.cpuSlots,
        cores.plus(other.cores),
        hostMemoryBytes + other.hostMemoryBytes,
        jobs + other.jobs,
        gpuFractions + other.gpuFractions,
        askedGpuBytes + other.askedGpuBytes);
  }

  /**
   * The GPUs held, as {@code max-gpus} counts them: whole GPUs, plus fractions, plus the GPU memory
   * asked for in bytes as a share of the cluster's average GPU (exact where every GPU is alike, as
   * in most clusters; the job's own GPU is not known before it starts).
   */
  public double gpus(Capacity capacity) {
    double averageGpu =
        capacity.gpus() == 0 ? 0 : (double) capacity.gpuMemoryBytes() / capacity.gpus();
    double asked = askedGpuBytes == 0 ? 0 : averageGpu > 0 ? askedGpuBytes / averageGpu : 0;
    return wholeGpus + gpuFractions + asked;
  }

  /** What a job holds once started with this decision: its GPUs, cores and host memory. */
  public static Held of(PlacementRequest request, PlacementDecision decision) {
    if (decision.isCpuOnly()) {
      return cpuOnly(request);
    }
    long bytes = 0;
    for (PlacedGpu gpu : decision.gpus()) {
      bytes += gpu.memoryBytes();
    }
    return ofGpus(request, bytes);
  }

  /**
   * The most a queued job can hold once started on a node whose largest GPU has {@code
   * largestGpuBytes}: its GPU budget is its asked bytes, or at most that GPU's memory (for a
   * fraction, its share of it); its other figures are exact.
   */
  public static Held atMost(PlacementRequest request, long largestGpuBytes) {
    if (request.isCpuOnly()) {
      return cpuOnly(request);
    }
    MemoryDemand memory = request.memory();
    long perGpu = largestGpuBytes;
    if (memory instanceof MemoryDemand.Bytes b) {
      perGpu = b.bytes();
    } else if (memory instanceof MemoryDemand.Fraction f) {
      perGpu = (long) Math.ceil(f.fraction() * largestGpuBytes);
    }
    return ofGpus(request, Math.max(0, perGpu) * request.gpus());
  }

  private static Held cpuOnly(PlacementRequest request) {
    return new Held(0, 0, 1, request.cpus(), request.hostMemoryBytes(), 1, 0, 0);
  }

  private static Held ofGpus(PlacementRequest request, long budgetBytes) {
    int gpus = request.gpus();
    MemoryDemand memory = request.memory();
    long whole = memory instanceof MemoryDemand.WholeGpu ? gpus : 0;
    double fractions = memory instanceof MemoryDemand.Fraction f ? gpus * f.fraction() : 0;
    long asked = memory instanceof MemoryDemand.Bytes b ? Math.max(0, b.bytes()) * gpus : 0;
    return new Held(
        budgetBytes, whole, 0, request.cpus(), request.hostMemoryBytes(), 1, fractions, asked);
  }
}
