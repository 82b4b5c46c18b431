package io.gpuq.fairshare;

import static org.assertj.core.api.Assertions.assertThat;

import io.gpuq.placement.MemoryDemand;
import io.gpuq.placement.PlacedGpu;
import io.gpuq.placement.PlacementDecision;
import io.gpuq.placement.PlacementRequest;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class LimitsTest {

  static final long GIB = 1L << 30;
  static final Instant NOW = Instant.parse("2026-12-03T09:00:00Z");
  static final Capacity FOUR_GPUS = new Capacity(4 * 10 * GIB, 4, 8, 32, 128 * GIB);
  static final Limits UNLIMITED = Limits.DEFAULT;

  static Limits maxRunningJobs(long max) {
    return new Limits(max, Double.POSITIVE_INFINITY, Limits.UNLIMITED, 10_000);
  }

  static Limits maxGpus(double max) {
    return new Limits(Limits.UNLIMITED, max, Limits.UNLIMITED, 10_000);
  }

  static Limits maxGpuMemory(long bytes) {
    return new Limits(Limits.UNLIMITED, Double.POSITIVE_INFINITY, bytes, 10_000);
  }

  static PlacementRequest job(String id, int gpus, MemoryDemand memory) {
    return new PlacementRequest(id, gpus, memory, 0, 0, NOW);
  }

  static Held holding(PlacementRequest job) {
    return Held.atMost(job, 10 * GIB);
  }

  @Test
  void theReasonNamesTheLimitAndItsValue() {
    assertThat(new Limits.Reached("max-gpus", 4).reason())
        .isEqualTo("at your limit of 4 GPUs (max-gpus)");
    assertThat(new Limits.Reached("max-gpus", 1.5).reason())
        .isEqualTo("at your limit of 1.5 GPUs (max-gpus)");
    assertThat(new Limits.Reached("max-running-jobs", 8).reason())
        .isEqualTo("at your limit of 8 running jobs (max-running-jobs)");
    assertThat(new Limits.Reached("max-running-jobs", 1).reason())
        .isEqualTo("at your limit of 1 running job (max-running-jobs)");
    assertThat(new Limits.Reached("max-gpu-memory", 40 * GIB).reason())
        .isEqualTo("at your limit of 40GiB of GPU memory (max-gpu-memory)");
  }

  @Test
  void wholeGpusAndFractionsAddUpToward_maxGpus() {
    // 3 whole GPUs and two halves held: 4 GPUs.
    Held held =
        holding(job("a", 3, MemoryDemand.wholeGpu()))
            .plus(holding(job("b", 1, MemoryDemand.fraction(0.5))))
            .plus(holding(job("c", 1, MemoryDemand.fraction(0.5))));
    assertThat(held.gpus(FOUR_GPUS)).isEqualTo(4.0);
    assertThat(
            maxGpus(4).reachedBy(held, holding(job("d", 1, MemoryDemand.fraction(0.1))), FOUR_GPUS))
        .contains(new Limits.Reached("max-gpus", 4));
    assertThat(
            maxGpus(4.1)
                .reachedBy(held, holding(job("d", 1, MemoryDemand.fraction(0.1))), FOUR_GPUS))
        .isEmpty();
  }

  @Test
  void tenTenthsMakeOneGpuDespiteRounding() {
    Held held = Held.NONE;
    for (int i = 0; i < 9; i++) {
      held = held.plus(holding(job("f" + i, 1, MemoryDemand.fraction(0.1))));
    }
    assertThat(
            maxGpus(1)
                .reachedBy(held, holding(job("last", 1, MemoryDemand.fraction(0.1))), FOUR_GPUS))
        .isEmpty();
  }

  @Test
  void aJobAskingForBytesCountsAsAShareOfTheAverageGpu() {
    // 5 GiB of an average 10 GiB GPU: half a GPU.
    assertThat(holding(job("b", 2, MemoryDemand.bytes(5 * GIB))).gpus(FOUR_GPUS)).isEqualTo(1.0);
  }

  @Test
  void aCpuOnlyJobIsHeldBackByRunningJobsOnly() {
    Held atTheirGpus = holding(job("a", 2, MemoryDemand.wholeGpu()));
    PlacementRequest cpuOnly = job("cpu", 0, MemoryDemand.wholeGpu());
    assertThat(maxGpus(2).reachedBy(atTheirGpus, holding(cpuOnly), FOUR_GPUS)).isEmpty();
    assertThat(maxGpuMemory(GIB).reachedBy(atTheirGpus, holding(cpuOnly), FOUR_GPUS)).isEmpty();
    assertThat(maxRunningJobs(1).reachedBy(atTheirGpus, holding(cpuOnly), FOUR_GPUS))
        .contains(new Limits.Reached("max-running-jobs", 1));
  }

  @Test
  void beforeItStartsAFractionCountsAsMuchAsItCanHoldOnTheLargestGpu() {
    // 0.5 of the node's largest GPU, 10 GiB: 5 GiB, which a limit of 4 GiB does not allow.
    assertThat(
            maxGpuMemory(4 * GIB)
                .reachedBy(Held.NONE, holding(job("f", 1, MemoryDemand.fraction(0.5))), FOUR_GPUS))
        .contains(new Limits.Reached("max-gpu-memory", 4 * GIB));
    assertThat(
            maxGpuMemory(5 * GIB)
                .reachedBy(Held.NONE, holding(job("f", 1, MemoryDemand.fraction(0.5))), FOUR_GPUS))
        .isEmpty();
  }

  @Test
  void anOwnerAtALimitWaitsWithTheLimitAsReasonWhileOthersGoOn() {
    Map<String, List<PlacementRequest>> queues = new LinkedHashMap<>();
    queues.put("alice", List.of(job("alice-0", 1, MemoryDemand.wholeGpu())));
    queues.put("bob", List.of(job("bob-0", 1, MemoryDemand.wholeGpu())));
    // alice holds 2 GPUs, her limit; she holds less than bob, so her job would come first.
    Map<String, Standing> standings =
        Map.of(
            "alice", new Standing(1, holding(job("x", 2, MemoryDemand.wholeGpu())), 0),
            "bob", new Standing(1, holding(job("y", 3, MemoryDemand.wholeGpu())), 0));
    FairShareOrder order =
        new FairShareOrder(
            FOUR_GPUS, standings, queues, new PassLimits(Map.of("alice", maxGpus(2)), 10 * GIB));
    assertThat(order.next().jobId()).isEqualTo("bob-0");
    assertThat(order.next()).isNull();
    assertThat(order.limitReached("alice-0").map(Limits.Reached::reason))
        .contains("at your limit of 2 GPUs (max-gpus)");
    assertThat(order.limitReached("bob-0")).isEmpty();
  }

  @Test
  void aSmallerJobBehindOneThatWouldPassTheLimitIsStillExamined() {
    Map<String, List<PlacementRequest>> queues = new LinkedHashMap<>();
    queues.put(
        "alice",
        List.of(
            job("alice-big", 2, MemoryDemand.wholeGpu()),
            job("alice-small", 1, MemoryDemand.fraction(0.5))));
    FairShareOrder order =
        new FairShareOrder(
            FOUR_GPUS,
            Map.of("alice", new Standing(1, holding(job("x", 1, MemoryDemand.wholeGpu())), 0)),
            queues,
            new PassLimits(Map.of("alice", maxGpus(2)), 10 * GIB));
    assertThat(order.next().jobId()).isEqualTo("alice-small");
    assertThat(order.limited()).containsOnlyKeys("alice-big");
  }

  @Test
  void theStartsOfOnePassCountTowardTheLimit() {
    List<PlacementRequest> jobs = new ArrayList<>();
    for (int i = 0; i < 5; i++) {
      jobs.add(job("alice-" + i, 0, MemoryDemand.wholeGpu()));
    }
    FairShareOrder order =
        new FairShareOrder(
            FOUR_GPUS,
            Map.of(),
            Map.of("alice", jobs),
            new PassLimits(Map.of("alice", maxRunningJobs(3)), 10 * GIB));
    List<String> started = new ArrayList<>();
    for (PlacementRequest r = order.next(); r != null; r = order.next()) {
      order.started(r, PlacementDecision.cpuOnly(r.jobId()));
      started.add(r.jobId());
    }
    assertThat(started).containsExactly("alice-0", "alice-1", "alice-2");
    assertThat(order.limited()).containsOnlyKeys("alice-3", "alice-4");
  }

  @Test
  void theClaimChecksAgainWithWhatEveryNodeHoldsByThen() {
    FairShareOrder order =
        new FairShareOrder(
            FOUR_GPUS,
            Map.of(),
            Map.of(
                "alice",
                List.of(
                    job("alice-0", 1, MemoryDemand.wholeGpu()),
                    job("alice-1", 1, MemoryDemand.wholeGpu()))),
            new PassLimits(Map.of("alice", maxGpus(2)), 10 * GIB));
    for (PlacementRequest r = order.next(); r != null; r = order.next()) {
      order.started(
          r,
          new PlacementDecision(r.jobId(), List.of(new PlacedGpu(0, "GPU-0", 10 * GIB, 10 * GIB))));
    }
    StartLimits limits = order.startLimits();
    assertThat(limits.limitedOwners()).containsExactly("alice");
    assertThat(limits.pastLimits(List.of("alice-0", "alice-1"), Map.of())).isEmpty();
    // Another node started one of alice's whole GPUs meanwhile: only the first start fits.
    Held elsewhere = holding(job("other", 1, MemoryDemand.wholeGpu()));
    assertThat(limits.pastLimits(List.of("alice-0", "alice-1"), Map.of("alice", elsewhere)))
        .containsExactly("alice-1");
    assertThat(StartLimits.NONE.limitedOwners()).isEmpty();
    assertThat(Optional.of(UNLIMITED.limitsRunning())).contains(false);
  }

  @Test
  void unsetLimitsAreUnlimitedButForQueuedJobs() {
    Limits limits = Limits.of(null, null, null, null);
    assertThat(limits).isEqualTo(Limits.DEFAULT);
    assertThat(limits.maxQueuedJobs()).isEqualTo(10_000);
    assertThat(limits.limitsRunning()).isFalse();
    assertThat(Limits.of(8L, 2.5, "40GiB", 50L)).isEqualTo(new Limits(8, 2.5, 40 * GIB, 50));
  }

  @Test
  void a_job_that_alone_passes_a_limit_could_never_start_under_it() {
    MemoryDemand whole = new MemoryDemand.WholeGpu();
    assertThat(maxGpus(1).neverAllows(2, whole)).map(Limits.Reached::key).hasValue("max-gpus");
    assertThat(maxGpus(1).neverAllows(1, whole)).isEmpty();
    assertThat(maxGpus(1).neverAllows(3, new MemoryDemand.Fraction(0.5)))
        .map(Limits.Reached::key)
        .hasValue("max-gpus");
    // Ten tenths are one GPU, as a pass adds them.
    assertThat(maxGpus(1).neverAllows(10, new MemoryDemand.Fraction(0.1))).isEmpty();
    assertThat(maxGpuMemory(4 * GIB).neverAllows(2, new MemoryDemand.Bytes(3 * GIB)))
        .map(Limits.Reached::key)
        .hasValue("max-gpu-memory");
    assertThat(maxGpuMemory(4 * GIB).neverAllows(2, new MemoryDemand.Bytes(2 * GIB))).isEmpty();
    assertThat(maxGpuMemory(4 * GIB).neverAllows(64, new MemoryDemand.Bytes(Long.MAX_VALUE / 2)))
        .isPresent();
    assertThat(maxRunningJobs(0).neverAllows(0, whole))
        .map(Limits.Reached::key)
        .hasValue("max-running-jobs");
    assertThat(maxRunningJobs(1).neverAllows(0, whole)).isEmpty();
  }

  @Test
  void what_depends_on_the_gpu_a_job_gets_is_left_to_the_pass() {
    // A whole GPU's memory, and the share of a GPU that bytes ask for, are known once placed.
    assertThat(maxGpuMemory(GIB).neverAllows(1, new MemoryDemand.WholeGpu())).isEmpty();
    assertThat(maxGpuMemory(GIB).neverAllows(1, new MemoryDemand.Fraction(0.5))).isEmpty();
    assertThat(maxGpus(0.5).neverAllows(4, new MemoryDemand.Bytes(GIB))).isEmpty();
    assertThat(UNLIMITED.neverAllows(64, new MemoryDemand.WholeGpu())).isEmpty();
    // Except a limit of none: no GPU job holds nothing.
    assertThat(maxGpus(0).neverAllows(1, new MemoryDemand.Bytes(1))).isPresent();
    assertThat(maxGpuMemory(0).neverAllows(1, new MemoryDemand.WholeGpu())).isPresent();
    assertThat(maxGpus(0).neverAllows(0, new MemoryDemand.WholeGpu())).isEmpty();
  }
}
