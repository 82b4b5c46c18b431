package io.gpuq.fairshare;

import static org.assertj.core.api.Assertions.assertThat;

import io.gpuq.fairshare.VictimChoice.Free;
import io.gpuq.fairshare.VictimChoice.Gpu;
import io.gpuq.fairshare.VictimChoice.Need;
import io.gpuq.fairshare.VictimChoice.Running;
import io.gpuq.fairshare.VictimChoice.Standings;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

@DisplayName("Choosing the jobs to preempt for a waiting job (issue 35)")
class VictimChoiceTest {

  static final long GIB = 1L << 30;
  static final Instant NOW = Instant.parse("2026-12-05T12:00:00Z");
  static final Duration MIN_RUNTIME = Duration.ofMinutes(5);

  // Two owners of share 1: each is entitled to half; alice holds everything, bob nothing.
  static final Standings ALICE_OVER = new Standings(Map.of("alice", 1.0, "bob", 0.0), 0.5);

  /** Two 16 GiB GPUs, each held whole by one of alice's runs: nothing free. */
  static final Free FULL = new Free(List.of(new Gpu(0, 0), new Gpu(1, 0)), 14_000, 60 * GIB);

  static Running alicesRun(String id, int gpu, Duration ago, boolean preemptible) {
    return new Running(
        id, "alice", NOW.minus(ago), preemptible, Map.of(gpu, 16 * GIB), true, 1000, 0);
  }

  static Need bobsWholeGpu() {
    return new Need("bob", 1, 16 * GIB, true, 1000, 0);
  }

  @Test
  @DisplayName("bob's job below share takes the GPU of alice's run that started last")
  void theRunStartedLastGivesWay() {
    Running older = alicesRun("a1", 0, Duration.ofHours(2), true);
    Running younger = alicesRun("a2", 1, Duration.ofMinutes(30), true);

    assertThat(
            VictimChoice.choose(
                bobsWholeGpu(), FULL, List.of(older, younger), ALICE_OVER, NOW, MIN_RUNTIME))
        .contains(List.of(younger));
  }

  @Test
  @DisplayName(
      "a run that is not preemptible, or younger than the minimum runtime, is never chosen")
  void onlyPreemptibleRunsOldEnough() {
    Running notPreemptible = alicesRun("a1", 0, Duration.ofHours(2), false);
    Running tooYoung = alicesRun("a2", 1, Duration.ofMinutes(4), true);

    assertThat(
            VictimChoice.choose(
                bobsWholeGpu(),
                FULL,
                List.of(notPreemptible, tooYoung),
                ALICE_OVER,
                NOW,
                MIN_RUNTIME))
        .isEmpty();
  }

  @Test
  @DisplayName("nothing is preempted for an owner at their share, nor from an owner at theirs")
  void onlyFromAboveForBelow() {
    List<Running> runs =
        List.of(
            alicesRun("a1", 0, Duration.ofHours(2), true),
            alicesRun("a2", 1, Duration.ofHours(2), true));
    Standings bothAtShare = new Standings(Map.of("alice", 0.5, "bob", 0.5), 0.5);

    assertThat(VictimChoice.choose(bobsWholeGpu(), FULL, runs, bothAtShare, NOW, MIN_RUNTIME))
        .isEmpty();
  }

  @Test
  @DisplayName(
      "the fewest jobs: one large run rather than two small ones; the owner furthest above first")
  void fewestThenFurthestAbove() {
    Free full = new Free(List.of(new Gpu(0, 0), new Gpu(1, 0)), 14_000, 60 * GIB);
    Running carolsSmall1 =
        new Running(
            "c1",
            "carol",
            NOW.minus(Duration.ofHours(1)),
            true,
            Map.of(0, 8 * GIB),
            false,
            1000,
            0);
    Running carolsSmall2 =
        new Running(
            "c2",
            "carol",
            NOW.minus(Duration.ofHours(1)),
            true,
            Map.of(0, 8 * GIB),
            false,
            1000,
            0);
    Running alicesLarge =
        new Running(
            "a1",
            "alice",
            NOW.minus(Duration.ofHours(3)),
            true,
            Map.of(1, 16 * GIB),
            false,
            1000,
            0);
    Standings standings = new Standings(Map.of("alice", 0.6, "carol", 0.9, "bob", 0.0), 1.0 / 3);
    Need eightGib = new Need("bob", 1, 8 * GIB, false, 1000, 0);
    Need sixteenGib = new Need("bob", 1, 16 * GIB, false, 1000, 0);

    // 8 GiB: one of carol's (furthest above) does it alone.
    assertThat(
            VictimChoice.choose(
                eightGib,
                full,
                List.of(carolsSmall1, carolsSmall2, alicesLarge),
                standings,
                NOW,
                MIN_RUNTIME))
        .hasValueSatisfying(v -> assertThat(v).hasSize(1).allMatch(r -> r.owner().equals("carol")));
    // 16 GiB: alice's one run, not carol's two.
    assertThat(
            VictimChoice.choose(
                sixteenGib,
                full,
                List.of(carolsSmall1, carolsSmall2, alicesLarge),
                standings,
                NOW,
                MIN_RUNTIME))
        .contains(List.of(alicesLarge));
  }

  @Test
  @DisplayName("cores and host memory count too: a victim must free what the job lacks")
  void coresAndHostMemory() {
    Free noCores = new Free(List.of(new Gpu(0, 16 * GIB)), 0, 60 * GIB);
    Running cpuRun =
        new Running(
            "a1", "alice", NOW.minus(Duration.ofHours(1)), true, Map.of(), false, 4000, 8 * GIB);
    Need needsCores = new Need("bob", 1, 8 * GIB, false, 2000, 4 * GIB);

    assertThat(
            VictimChoice.choose(needsCores, noCores, List.of(cpuRun), ALICE_OVER, NOW, MIN_RUNTIME))
        .contains(List.of(cpuRun));
  }

  @Test
  @DisplayName("nothing is preempted when even every candidate together would not make it fit")
  void onlyIfItThenFits() {
    Running one = alicesRun("a1", 0, Duration.ofHours(2), true);
    Need twoWholeGpus = new Need("bob", 2, 16 * GIB, true, 1000, 0);
    Running notPreemptible = alicesRun("a2", 1, Duration.ofHours(2), false);

    assertThat(
            VictimChoice.choose(
                twoWholeGpus, FULL, List.of(one, notPreemptible), ALICE_OVER, NOW, MIN_RUNTIME))
        .isEmpty();
  }
}
