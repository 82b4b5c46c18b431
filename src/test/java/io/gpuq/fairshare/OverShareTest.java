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
import java.util.Set;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

@DisplayName("gpuq.preemption.over-share-requires-preemptible (issue 35)")
class OverShareTest {

  static final Instant NOW = Instant.parse("2026-12-05T06:00:00Z");
  static final long GIB = 1L << 30;
  static final Capacity FOUR_GPUS = new Capacity(4 * 10 * GIB, 4, 4);
  static final PassLimits NO_LIMITS = new PassLimits(Map.of(), 10 * GIB);

  static PlacementRequest wholeGpu(String id, int second) {
    return new PlacementRequest(id, 1, MemoryDemand.wholeGpu(), 0, second, NOW.plusSeconds(second));
  }

  /** Alice holds one of four GPUs; bob holds none; both have share 1 (half the cluster each). */
  static FairShareOrder order(OverShare rule) {
    Map<String, List<PlacementRequest>> queues = new LinkedHashMap<>();
    queues.put("bob", List.of(wholeGpu("bob-0", 0)));
    queues.put(
        "alice", List.of(wholeGpu("alice-0", 1), wholeGpu("alice-1", 2), wholeGpu("alice-2", 3)));
    Map<String, Standing> standings =
        Map.of("alice", new Standing(1, new Held(10 * GIB, 1, 0), 0), "bob", Standing.fresh(1));
    return new FairShareOrder(FOUR_GPUS, standings, queues, NO_LIMITS, rule);
  }

  static List<String> examineAll(FairShareOrder order) {
    List<String> examined = new ArrayList<>();
    int gpu = 0;
    for (PlacementRequest r = order.next(); r != null; r = order.next()) {
      examined.add(r.jobId());
      order.started(
          r,
          new PlacementDecision(
              r.jobId(), List.of(new PlacedGpu(gpu, "GPU-" + gpu, 10 * GIB, 10 * GIB))));
      gpu++;
    }
    return examined;
  }

  @Test
  @DisplayName(
      "a job that may not be preempted starts only while its owner stays within their share;"
          + " their preemptible job behind it may use the idle GPU")
  void notPreemptibleWaitsAboveTheShare() {
    FairShareOrder order = order(new OverShare(true, Set.of("alice-2"), 2));

    List<String> examined = examineAll(order);

    // alice-0 takes alice to 2 of 4 GPUs: her half. alice-1 would take her to 3 of 4.
    assertThat(examined).containsExactlyInAnyOrder("bob-0", "alice-0", "alice-2");
    assertThat(order.limitReached("alice-1").map(Limits.Reached::reason))
        .contains("over your share; preemptible jobs may use idle GPUs");
    assertThat(order.limitReached("alice-0")).isEmpty();
    assertThat(order.limitReached("alice-2")).isEmpty();
    assertThat(order.startLimits().starts()).containsOnlyKeys("bob-0", "alice-0", "alice-2");
  }

  @Test
  @DisplayName("without the rule (the default) every job may start above its owner's share")
  void offByDefault() {
    FairShareOrder order = order(OverShare.OFF);

    assertThat(examineAll(order))
        .containsExactlyInAnyOrder("bob-0", "alice-0", "alice-1", "alice-2");
    assertThat(order.limited()).isEmpty();
  }

  @Test
  @DisplayName("an owner alone in the cluster holds all of it as their share")
  void anOwnerAlone() {
    Map<String, List<PlacementRequest>> queues = new LinkedHashMap<>();
    queues.put(
        "alice",
        List.of(
            wholeGpu("alice-0", 1),
            wholeGpu("alice-1", 2),
            wholeGpu("alice-2", 3),
            wholeGpu("alice-3", 4)));
    FairShareOrder order =
        new FairShareOrder(
            FOUR_GPUS, Map.of(), queues, NO_LIMITS, new OverShare(true, Set.of(), 1));

    assertThat(examineAll(order)).hasSize(4);
  }

  @Test
  @DisplayName("the share is weighted, and counts the dominant resource: cores as well as GPUs")
  void weightedAndDominant() {
    Capacity capacity = new Capacity(4 * 10 * GIB, 4, 4, 8, 0);
    // alice's share is 3 of 4 (bob's 1): she may hold 3 GPUs, or 6 cores.
    OverShare rule = new OverShare(true, Set.of(), 4);
    Standing alice = new Standing(3, new Held(10 * GIB, 1, 0), 0);
    Held oneGpu = new Held(10 * GIB, 1, 0);
    Held twoGpus = new Held(20 * GIB, 2, 0);
    Held sevenCores = new Held(0, 0, 1, io.gpuq.text.Cpus.of(7), 0, 1, 0, 0);

    assertThat(rule.holdsBack("j", alice, oneGpu, capacity)).isFalse();
    assertThat(rule.holdsBack("j", alice, twoGpus, capacity)).isFalse();
    assertThat(rule.holdsBack("j", alice, twoGpus.plus(oneGpu), capacity)).isTrue();
    assertThat(rule.holdsBack("j", alice, sevenCores, capacity)).isTrue();
    assertThat(new OverShare(true, Set.of("j"), 4).holdsBack("j", alice, sevenCores, capacity))
        .as("a preemptible job")
        .isFalse();
  }

  @Test
  @DisplayName(
      "checked again at the claim: two nodes' starts from the same figures cannot both take an"
          + " owner past their share; a preemptible start is never held back")
  void checkedAgainAtTheClaim() {
    Held oneGpu = new Held(10 * GIB, 1, 0);
    Map<String, StartLimits.Start> starts =
        Map.of(
            "alice-1", new StartLimits.Start("alice", oneGpu),
            "alice-2", new StartLimits.Start("alice", oneGpu));
    StartLimits rule =
        new StartLimits(
            Map.of(), starts, FOUR_GPUS, new OverShare(true, Set.of(), 2), Map.of("alice", 1.0));
    StartLimits preemptible =
        new StartLimits(
            Map.of(),
            starts,
            FOUR_GPUS,
            new OverShare(true, Set.of("alice-2"), 2),
            Map.of("alice", 1.0));

    // Each node's pass saw alice with nothing and planned one start; by the claim she holds the
    // one another node started: 2 of 4 GPUs after alice-1, her half, 3 after alice-2.
    Map<String, Held> heldNow = Map.of("alice", oneGpu);

    assertThat(rule.limitedOwners()).containsExactly("alice");
    assertThat(rule.pastLimits(List.of("alice-1", "alice-2"), heldNow)).containsExactly("alice-2");
    assertThat(preemptible.pastLimits(List.of("alice-1", "alice-2"), heldNow)).isEmpty();
    assertThat(new StartLimits(Map.of(), starts, FOUR_GPUS).limitedOwners()).isEmpty();
  }

  @Test
  @DisplayName(
      "checked again at the claim, what an owner holds beside their workers (a warm-start"
          + " zygote's memory, issue 36) counts as their jobs' holdings do")
  void heldBesideTheWorkersCountsAtTheClaim() {
    // Half the host memory is alice's share (two owners of share 1); her start asks for 3 of 8 GiB.
    Capacity capacity = new Capacity(4 * 10 * GIB, 4, 4, 8, 8 * GIB);
    Held threeGib = new Held(0, 0, 1, io.gpuq.text.Cpus.of(1), 3 * GIB, 1, 0, 0);
    Map<String, StartLimits.Start> starts =
        Map.of("alice-1", new StartLimits.Start("alice", threeGib));
    StartLimits rule =
        new StartLimits(
            Map.of(), starts, capacity, new OverShare(true, Set.of(), 2), Map.of("alice", 1.0));
    // Her zygote holds 1.5 GiB on the claiming node: 4.5 of 8 GiB with the start, over her half.
    Held zygote = new Held(0, 0, 0, io.gpuq.text.Cpus.ZERO, 3 * GIB / 2, 0, 0, 0);

    assertThat(rule.pastLimits(List.of("alice-1"), Map.of())).isEmpty();
    assertThat(
            rule.withHeldBeside(Map.of("alice", zygote)).pastLimits(List.of("alice-1"), Map.of()))
        .containsExactly("alice-1");
    assertThat(rule.withHeldBeside(Map.of("bob", zygote)).pastLimits(List.of("alice-1"), Map.of()))
        .as("another owner's zygote")
        .isEmpty();
    assertThat(rule.withHeldBeside(Map.of())).isSameAs(rule);
  }
}
