package io.gpuq.bench;

import io.gpuq.placement.GpuCapacity;
import io.gpuq.placement.Headroom;
import io.gpuq.placement.MemoryDemand;
import io.gpuq.placement.PlacementPlan;
import io.gpuq.placement.PlacementPolicy;
import io.gpuq.placement.PlacementRequest;
import io.gpuq.placement.Placer;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Random;

/**
 * Time of one placement pass over a queue of 1k to 10k jobs (fractions, byte budgets, 1–4 GPU
 * gangs, whole GPUs, CPU-only) on 64 GPUs, with lookahead = queue size so the whole queue is
 * scanned. Queued jobs have waited less than maxWait, so no reservation cuts the scan short. The
 * queue is handed over shuffled, so the sort is included.
 *
 * <p>Usage: {@code bench/run PlacementBench [seconds per size, default 3]}
 */
public final class PlacementBench {

  private static final int GPUS = 64;
  private static final int[] SIZES = {1_000, 2_500, 5_000, 10_000};
  private static final int VARIANTS = 4;
  private static final Instant NOW = Instant.parse("2026-11-29T12:00:00Z");
  private static final long GIB = 1L << 30;

  private static long sink;

  public static void main(String[] args) {
    double secondsPerSize = args.length > 0 ? Double.parseDouble(args[0]) : 3;
    Random random = new Random(42);
    List<GpuCapacity> gpus = node(random);

    System.out.printf(
        Locale.ROOT,
        "placement pass, %d GPUs, lookahead = queue size, shuffled input (%s, %d cpus)%n",
        GPUS,
        System.getProperty("java.vm.version"),
        Runtime.getRuntime().availableProcessors());
    for (int size : SIZES) {
      measure(gpus, queues(size, random), secondsPerSize / 2); // warm-up
    }
    System.out.printf(
        Locale.ROOT,
        "%8s %8s %9s %9s %9s %10s %8s%n",
        "queue",
        "passes",
        "mean ms",
        "p50 ms",
        "p99 ms",
        "ns/job",
        "starts");
    double[] nsPerJob = new double[SIZES.length];
    for (int i = 0; i < SIZES.length; i++) {
      int size = SIZES[i];
      Result r = measure(gpus, queues(size, random), secondsPerSize);
      nsPerJob[i] = r.meanNanos / size;
      System.out.printf(
          Locale.ROOT,
          "%8d %8d %9.3f %9.3f %9.3f %10.1f %8d%n",
          size,
          r.passes,
          r.meanNanos / 1e6,
          r.p50Nanos / 1e6,
          r.p99Nanos / 1e6,
          nsPerJob[i],
          r.startsPerPass);
    }
    System.out.printf(
        Locale.ROOT,
        "time per job at 10k / at 1k: %.2f (1.00 = linear)%n",
        nsPerJob[SIZES.length - 1] / nsPerJob[0]);
    List<List<PlacementRequest>> sortedQueues =
        queues(SIZES[SIZES.length - 1], random).stream()
            .map(q -> q.stream().sorted(Placer.QUEUE_ORDER).toList())
            .toList();
    Result presorted = measure(gpus, sortedQueues, secondsPerSize);
    System.out.printf(
        Locale.ROOT,
        "10k already in queue order: mean %.3f ms, p50 %.3f ms, p99 %.3f ms%n",
        presorted.meanNanos / 1e6,
        presorted.p50Nanos / 1e6,
        presorted.p99Nanos / 1e6);
    if (sink == 42) {
      System.out.println();
    }
  }

  private record Result(
      int passes, double meanNanos, long p50Nanos, long p99Nanos, int startsPerPass) {}

  private static Result measure(
      List<GpuCapacity> gpus, List<List<PlacementRequest>> queues, double seconds) {
    Placer placer =
        new Placer(
            new PlacementPolicy(
                new Headroom(GIB / 2, 0.02),
                Duration.ofMinutes(10),
                Duration.ofSeconds(5),
                queues.get(0).size()));
    List<Long> times = new ArrayList<>();
    long deadline = System.nanoTime() + (long) (seconds * 1e9);
    int starts = 0;
    for (int pass = 0; System.nanoTime() < deadline || pass < 20; pass++) {
      List<PlacementRequest> queue = queues.get(pass % queues.size());
      long t0 = System.nanoTime();
      PlacementPlan plan = placer.plan(gpus, 8, queue, NOW);
      long elapsed = System.nanoTime() - t0;
      times.add(elapsed);
      starts = plan.starts().size();
      sink += starts;
    }
    long[] sorted = times.stream().mapToLong(Long::longValue).sorted().toArray();
    double mean = Arrays.stream(sorted).average().orElse(0);
    return new Result(
        sorted.length,
        mean,
        sorted[sorted.length / 2],
        sorted[(int) Math.min(sorted.length - 1, Math.ceil(sorted.length * 0.99) - 1)],
        starts);
  }

  /** 64 GPUs of 80 GiB: a third empty, a third partly used, a third nearly full, some foreign. */
  private static List<GpuCapacity> node(Random random) {
    List<GpuCapacity> gpus = new ArrayList<>();
    long total = 80 * GIB;
    for (int i = 0; i < GPUS; i++) {
      long reserved =
          switch (i % 3) {
            case 0 -> 0;
            case 1 -> (long) (random.nextDouble() * 0.6 * total);
            default -> (long) ((0.85 + random.nextDouble() * 0.1) * total);
          };
      long foreign = i % 8 == 5 ? 2 * GIB : 0;
      long measured = (long) ((reserved + foreign) * (0.7 + random.nextDouble() * 0.3));
      Instant lastStart = i % 5 == 0 ? NOW.minusSeconds(2) : NOW.minusSeconds(600);
      gpus.add(new GpuCapacity(i, "GPU-" + i, total, reserved, measured, foreign, lastStart));
    }
    return gpus;
  }

  private static List<List<PlacementRequest>> queues(int size, Random random) {
    List<List<PlacementRequest>> variants = new ArrayList<>();
    for (int v = 0; v < VARIANTS; v++) {
      List<PlacementRequest> queue = new ArrayList<>(size);
      for (int i = 0; i < size; i++) {
        queue.add(request(i, random));
      }
      Collections.shuffle(queue, random);
      variants.add(List.copyOf(queue));
    }
    return variants;
  }

  private static PlacementRequest request(int i, Random random) {
    double kind = random.nextDouble();
    int gpus;
    MemoryDemand memory;
    if (kind < 0.30) {
      gpus = 1;
      memory = new MemoryDemand.Bytes((1 + random.nextInt(40)) * GIB);
    } else if (kind < 0.55) {
      gpus = 1;
      memory = new MemoryDemand.Fraction(0.05 + random.nextDouble() * 0.45);
    } else if (kind < 0.70) {
      gpus = 2 + random.nextInt(3);
      memory =
          random.nextBoolean()
              ? new MemoryDemand.Bytes((4 + random.nextInt(30)) * GIB)
              : new MemoryDemand.Fraction(0.1 + random.nextDouble() * 0.5);
    } else if (kind < 0.80) {
      gpus = 1 + random.nextInt(2);
      memory = new MemoryDemand.WholeGpu();
    } else {
      gpus = 0;
      memory = new MemoryDemand.WholeGpu();
    }
    return new PlacementRequest(
        "job-" + i, gpus, memory, random.nextInt(4), i, NOW.minusSeconds(random.nextInt(300)));
  }
}
