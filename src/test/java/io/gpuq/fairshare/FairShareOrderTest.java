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
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class FairShareOrderTest {

  static final Instant NOW = Instant.parse("2026-12-03T06:00:00Z");
  static final long GIB = 1L << 30;
  static final Capacity TWO_GPUS = new Capacity(2 * 10 * GIB, 2, 4);

  static List<PlacementRequest> jobs(String owner, int count, double fraction, int firstSecond) {
    List<PlacementRequest> jobs = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      jobs.add(
          new PlacementRequest(
              owner + "-" + i,
              1,
              MemoryDemand.fraction(fraction),
              0,
              i,
              NOW.minusSeconds(1000 - firstSecond - i)));
    }
    return jobs;
  }

  static List<GpuCapacity> twoEmptyGpus() {
    return List.of(
        new GpuCapacity(0, "GPU-0", 10 * GIB, 0, 0, 0, null),
        new GpuCapacity(1, "GPU-1", 10 * GIB, 0, 0, 0, null));
  }

  static Placer placer() {
    return new Placer(new PlacementPolicy(Headroom.NONE, Duration.ofHours(1), Duration.ZERO, 1000));
  }

  @Test
  void theOwnerFurthestBelowTheirShareGoesFirst() {
    Map<String, Standing> standings =
        Map.of(
            "alice", new Standing(1, new Held(15 * GIB, 0, 0), 0),
            "bob", new Standing(1, new Held(0, 0, 0), 0));
    Map<String, List<PlacementRequest>> queues = new LinkedHashMap<>();
    queues.put("alice", jobs("alice", 3, 0.1, 0));
    queues.put("bob", jobs("bob", 1, 0.1, 500));
    FairShareOrder order = new FairShareOrder(TWO_GPUS, standings, queues);
    assertThat(order.next().jobId()).isEqualTo("bob-0");
  }

  @Test
  void aJobThatDoesNotStartLeavesItsOwnerFirstSoTheirNextJobIsExamined() {
    Map<String, List<PlacementRequest>> queues = new LinkedHashMap<>();
    queues.put("alice", jobs("alice", 2, 0.1, 0));
    queues.put("bob", jobs("bob", 2, 0.1, 0));
    FairShareOrder order =
        new FairShareOrder(
            TWO_GPUS, Map.of("alice", new Standing(1, new Held(GIB, 0, 0), 0)), queues);
    assertThat(order.next().jobId()).isEqualTo("bob-0");
    assertThat(order.next().jobId()).isEqualTo("bob-1");
    assertThat(order.next().jobId()).isEqualTo("alice-0");
  }

  @Test
  void aStartCountsAtOnceAgainstItsOwner() {
    Map<String, List<PlacementRequest>> queues = new LinkedHashMap<>();
    queues.put("alice", jobs("alice", 3, 0.5, 0));
    queues.put("bob", jobs("bob", 3, 0.5, 0));
    FairShareOrder order = new FairShareOrder(TWO_GPUS, Map.of(), queues);
    List<String> examined = new ArrayList<>();
    for (PlacementRequest r = order.next(); r != null; r = order.next()) {
      examined.add(r.jobId());
      order.started(
          r,
          new PlacementDecision(
              r.jobId(), List.of(new io.gpuq.placement.PlacedGpu(0, "GPU-0", 5 * GIB, 10 * GIB))));
    }
    assertThat(examined)
        .containsExactly("alice-0", "bob-0", "alice-1", "bob-1", "alice-2", "bob-2");
  }

  @Test
  void withinAnOwnerPriorityOrdersTheirOwnJobsOnly() {
    Map<String, List<PlacementRequest>> queues = new LinkedHashMap<>();
    // alice's job of priority 100 does not jump bob's: bob holds nothing, alice half.
    queues.put(
        "alice",
        List.of(
            new PlacementRequest("alice-urgent", 1, MemoryDemand.fraction(0.5), 100, 1, NOW),
            new PlacementRequest("alice-later", 1, MemoryDemand.fraction(0.5), 0, 0, NOW)));
    queues.put("bob", jobs("bob", 1, 0.5, 999));
    FairShareOrder order =
        new FairShareOrder(
            TWO_GPUS, Map.of("alice", new Standing(1, new Held(10 * GIB, 0, 0), 0)), queues);
    assertThat(order.next().jobId()).isEqualTo("bob-0");
    assertThat(order.next().jobId()).isEqualTo("alice-urgent");
  }

  @Test
  void onePassSharesTheFreePlacesBetweenOwners() {
    Map<String, List<PlacementRequest>> queues = new LinkedHashMap<>();
    queues.put("alice", jobs("alice", 30, 0.4, 0));
    queues.put("bob", jobs("bob", 30, 0.4, 100));
    FairShareOrder order = new FairShareOrder(TWO_GPUS, Map.of(), queues);
    PlacementPlan plan = placer().plan(twoEmptyGpus(), 4, order, NOW);
    // Two GPUs take two jobs of 0.4 each: four places, two each.
    assertThat(plan.starts())
        .extracting(PlacementDecision::jobId)
        .containsExactlyInAnyOrder("alice-0", "alice-1", "bob-0", "bob-1");
  }

  @Test
  void bobsOneJobGetsTheNextPlaceAheadOfAlicesThirty() {
    Map<String, List<PlacementRequest>> queues = new LinkedHashMap<>();
    queues.put("alice", jobs("alice", 30, 0.4, 0));
    queues.put("bob", jobs("bob", 1, 0.4, 900));
    // alice holds three of the four places; one is free.
    List<GpuCapacity> gpus =
        List.of(
            new GpuCapacity(0, "GPU-0", 10 * GIB, 8 * GIB, 0, 0, null),
            new GpuCapacity(1, "GPU-1", 10 * GIB, 4 * GIB, 0, 0, null));
    FairShareOrder order =
        new FairShareOrder(
            TWO_GPUS, Map.of("alice", new Standing(1, new Held(12 * GIB, 0, 0), 0)), queues);
    PlacementPlan plan = placer().plan(gpus, 4, order, NOW);
    assertThat(plan.starts()).extracting(PlacementDecision::jobId).containsExactly("bob-0");
  }

  @Test
  void theDominantShareIsTheLargestOfTheResources() {
    Capacity capacity = new Capacity(100, 4, 10);
    assertThat(capacity.dominant(new Held(30, 0, 1)))
        .isEqualTo(new Capacity.Dominant(Resource.GPU_MEMORY, 0.3));
    assertThat(capacity.dominant(new Held(30, 2, 1)))
        .isEqualTo(new Capacity.Dominant(Resource.WHOLE_GPUS, 0.5));
    assertThat(capacity.dominant(new Held(0, 0, 6)))
        .isEqualTo(new Capacity.Dominant(Resource.CPU_SLOTS, 0.6));
    assertThat(new Capacity(0, 0, 0).dominant(new Held(5, 1, 1)).share()).isZero();
  }

  @Test
  void theDominantShareCountsCoresAndHostMemoryToo() {
    // 100 bytes of GPU memory, 4 GPUs, 10 CPU slots, 64 cores, 256 GiB of host memory.
    Capacity capacity = new Capacity(100, 4, 10, 64, 256 * GIB);
    // 10% of the GPU memory, but 32 of 64 cores: the cores dominate.
    assertThat(capacity.dominant(new Held(10, 0, 0, Cpus.of(32), 16 * GIB, 2, 0.2, 0)))
        .isEqualTo(new Capacity.Dominant(Resource.CORES, 0.5));
    // 4 cores, but 192 GiB of 256: the host memory dominates.
    assertThat(capacity.dominant(new Held(10, 0, 0, Cpus.of(4), 192 * GIB, 1, 0.1, 0)))
        .isEqualTo(new Capacity.Dominant(Resource.HOST_MEMORY, 0.75));
    // Fractions count as what they are: eight quarter cores hold 2 of the 64 cores.
    assertThat(capacity.dominant(new Held(0, 0, 0, Cpus.ofMillis(8 * 250), 0, 8, 0, 0)))
        .isEqualTo(new Capacity.Dominant(Resource.CORES, 2.0 / 64));
    // A cluster that reported no cores or memory counts neither.
    assertThat(
            new Capacity(100, 4, 10).dominant(new Held(10, 0, 0, Cpus.of(32), 192 * GIB, 2, 0, 0)))
        .isEqualTo(new Capacity.Dominant(Resource.GPU_MEMORY, 0.1));
  }

  @Test
  void anOwnerWhoHoldsManyCoresWaitsBehindOneWhoHoldsLittle() {
    Capacity capacity = new Capacity(2 * 10 * GIB, 2, 4, 16, 64 * GIB);
    Map<String, List<PlacementRequest>> queues = new LinkedHashMap<>();
    queues.put("alice", jobs("alice", 1, 0.1, 0));
    queues.put("bob", jobs("bob", 1, 0.1, 500));
    // alice holds little GPU memory but 12 of the 16 cores; bob holds 20% of the GPU memory.
    Map<String, Standing> standings =
        Map.of(
            "alice", new Standing(1, new Held(GIB, 0, 0, Cpus.of(12), 0, 3, 0.3, 0), 0),
            "bob", new Standing(1, new Held(4 * GIB, 0, 0, Cpus.of(2), 0, 2, 0.4, 0), 0));
    assertThat(new FairShareOrder(capacity, standings, queues).next().jobId()).isEqualTo("bob-0");
  }

  @Test
  void thePositionIsHeldPlusRecentOverShare() {
    Capacity capacity = new Capacity(100, 4, 10);
    assertThat(new Standing(2, new Held(50, 0, 0), 0.25).position(capacity)).isEqualTo(0.375);
  }

  @Test
  void aJobExaminedAfterAnotherOwnersStartKnowsWhoseTurnCameFirst() {
    Map<String, List<PlacementRequest>> queues = new LinkedHashMap<>();
    queues.put("alice", jobs("alice", 30, 0.4, 0));
    queues.put("bob", jobs("bob", 1, 0.4, 900));
    List<GpuCapacity> gpus =
        List.of(
            new GpuCapacity(0, "GPU-0", 10 * GIB, 8 * GIB, 0, 0, null),
            new GpuCapacity(1, "GPU-1", 10 * GIB, 4 * GIB, 0, 0, null));
    FairShareOrder order =
        new FairShareOrder(
            TWO_GPUS, Map.of("alice", new Standing(1, new Held(12 * GIB, 0, 0), 0)), queues);
    placer().plan(gpus, 4, order, NOW);
    assertThat(order.turnGivenTo("alice-0")).contains("bob");
    assertThat(order.turnGivenTo("bob-0")).isEmpty();
    // One job of 1 core, a fraction of 0.4 of one GPU, 4 GiB of it.
    assertThat(order.standings().get("bob").held())
        .isEqualTo(new Held(4 * GIB, 0, 0, Cpus.of(1), 0, 1, 0.4, 0));
  }
}
