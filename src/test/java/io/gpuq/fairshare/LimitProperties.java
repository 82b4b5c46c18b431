package io.gpuq.fairshare;

import static org.assertj.core.api.Assertions.assertThat;

import io.gpuq.placement.GpuCapacity;
import io.gpuq.placement.Headroom;
import io.gpuq.placement.MemoryDemand;
import io.gpuq.placement.PlacementDecision;
import io.gpuq.placement.PlacementPlan;
import io.gpuq.placement.PlacementPolicy;
import io.gpuq.placement.PlacementRequest;
import io.gpuq.placement.Placer;
import io.gpuq.text.Cpus;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import net.jqwik.api.ForAll;
import net.jqwik.api.Label;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;

/**
 * The running limits as the pass keeps them, in a model of a cluster that never frees anything:
 * owners with random limits queue random jobs (CPU-only, whole GPUs, fractions, byte budgets, with
 * cores and host memory), and pass after pass, each on empty GPUs of mixed sizes, the placer starts
 * what the fair-share order gives it. What each owner holds, added up from the placer's own
 * decisions, never passes a limit.
 */
class LimitProperties {

  static final long GIB = 1L << 30;
  static final Instant NOW = Instant.parse("2026-12-03T09:00:00Z");
  static final long[] GPU_SIZES = {8 * GIB, 10 * GIB, 16 * GIB};

  @Property(tries = 300)
  @Label("no limit is ever exceeded")
  void noLimitIsEverExceeded(
      @ForAll long seed,
      @ForAll @IntRange(min = 1, max = 4) int owners,
      @ForAll @IntRange(min = 1, max = 6) int passes) {
    Random random = new Random(seed);
    Map<String, Limits> limits = new LinkedHashMap<>();
    Map<String, List<PlacementRequest>> queued = new LinkedHashMap<>();
    long sequence = 0;
    for (int o = 0; o < owners; o++) {
      String owner = "owner-" + o;
      limits.put(owner, randomLimits(random));
      List<PlacementRequest> jobs = new ArrayList<>();
      for (int j = 0, n = 1 + random.nextInt(12); j < n; j++) {
        String id = owner + "-" + j;
        jobs.add(
            new PlacementRequest(
                id,
                randomGpus(random),
                randomMemory(random),
                0,
                sequence++,
                NOW.minusSeconds(j),
                Cpus.of(1 + random.nextInt(4)),
                random.nextInt(3) * GIB));
      }
      queued.put(owner, jobs);
    }
    // The cluster: up to 4 GPUs of mixed sizes. Each pass finds them empty again, as if a node
    // of the same GPUs had joined, so that the owners' holdings grow pass after pass.
    List<GpuCapacity> gpus = new ArrayList<>();
    long memory = 0;
    long largest = 0;
    for (int g = 0, n = 1 + random.nextInt(4); g < n; g++) {
      long size = GPU_SIZES[random.nextInt(GPU_SIZES.length)];
      gpus.add(new GpuCapacity(g, "GPU-" + g, size, 0, 0, 0, null));
      memory += size;
      largest = Math.max(largest, size);
    }
    Capacity capacity = new Capacity(memory, gpus.size(), 4, 16, 64 * GIB);
    Map<String, Held> held = new HashMap<>();
    for (int pass = 0; pass < passes; pass++) {
      Map<String, Standing> standings = new HashMap<>();
      limits
          .keySet()
          .forEach(o -> standings.put(o, new Standing(1, held.getOrDefault(o, Held.NONE), 0)));
      Map<String, List<PlacementRequest>> queues = new LinkedHashMap<>();
      queued.forEach((o, jobs) -> queues.put(o, List.copyOf(jobs)));
      FairShareOrder order =
          new FairShareOrder(capacity, standings, queues, new PassLimits(limits, largest));
      PlacementPlan plan = placer().plan(gpus, 4, order, NOW);
      Map<String, PlacementRequest> byId = new HashMap<>();
      queued.values().forEach(jobs -> jobs.forEach(job -> byId.put(job.jobId(), job)));
      for (PlacementDecision start : plan.starts()) {
        PlacementRequest job = byId.get(start.jobId());
        String owner = order.ownerOf(job.jobId());
        held.merge(owner, Held.of(job, start), Held::plus);
        queued.get(owner).remove(job);
      }
      for (Map.Entry<String, Held> entry : held.entrySet()) {
        Limits limit = limits.get(entry.getKey());
        Held h = entry.getValue();
        assertThat(h.jobs()).isLessThanOrEqualTo(limit.maxRunningJobs());
        assertThat(h.gpuMemoryBytes()).isLessThanOrEqualTo(limit.maxGpuMemoryBytes());
        assertThat(h.gpus(capacity)).isLessThanOrEqualTo(limit.maxGpus() + 1e-9);
      }
      // A job held back names a limit its owner could not take.
      order
          .limited()
          .forEach((id, reached) -> assertThat(reached.reason()).contains(reached.key()));
    }
  }

  static Limits randomLimits(Random random) {
    return new Limits(
        random.nextBoolean() ? Limits.UNLIMITED : random.nextInt(6),
        random.nextBoolean() ? Double.POSITIVE_INFINITY : random.nextInt(9) / 2.0,
        random.nextBoolean() ? Limits.UNLIMITED : (1 + random.nextInt(40)) * GIB,
        Limits.DEFAULT_MAX_QUEUED_JOBS);
  }

  static int randomGpus(Random random) {
    int r = random.nextInt(5);
    return r == 0 ? 0 : r == 4 ? 2 : 1;
  }

  static MemoryDemand randomMemory(Random random) {
    switch (random.nextInt(3)) {
      case 0:
        return MemoryDemand.wholeGpu();
      case 1:
        return MemoryDemand.fraction((1 + random.nextInt(10)) / 10.0);
      default:
        return MemoryDemand.bytes((1 + random.nextInt(8)) * GIB);
    }
  }

  static Placer placer() {
    return new Placer(new PlacementPolicy(Headroom.NONE, Duration.ofHours(1), Duration.ZERO, 1000));
  }
}
