package io.gpuq.fairshare;

import static org.assertj.core.api.Assertions.assertThat;

import io.gpuq.fairshare.VictimChoice.Free;
import io.gpuq.fairshare.VictimChoice.Gpu;
import io.gpuq.fairshare.VictimChoice.Need;
import io.gpuq.fairshare.VictimChoice.Running;
import io.gpuq.fairshare.VictimChoice.Standings;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import net.jqwik.api.ForAll;
import net.jqwik.api.Label;
import net.jqwik.api.Property;

/**
 * The victim choice on random nodes: GPUs of 16 GiB shared by running jobs of random owners (whole
 * GPUs and budgets), random standings, a random waiting job.
 */
class VictimChoiceProperties {

  static final long GIB = 1L << 30;
  static final Instant NOW = Instant.parse("2026-12-05T12:00:00Z");
  static final Duration MIN_RUNTIME = Duration.ofMinutes(5);
  static final String[] OWNERS = {"alice", "bob", "carol", "dave"};

  record Case(Need need, Free free, List<Running> running, Standings standings) {}

  @Property(tries = 500)
  @Label("a preemption happens only if the waiting job then fits")
  void onlyIfItThenFits(@ForAll long seed) {
    Case c = randomCase(new Random(seed));
    choose(c)
        .ifPresent(
            victims ->
                assertThat(VictimChoice.fitsWithout(c.need(), c.free(), c.running(), victims))
                    .isTrue());
  }

  @Property(tries = 500)
  @Label("never a victim of an owner at or below their share, nor one not preemptible or too young")
  void neverAtOrBelowShare(@ForAll long seed) {
    Case c = randomCase(new Random(seed));
    choose(c)
        .ifPresent(
            victims -> {
              assertThat(c.standings().isBelow(c.need().owner())).isTrue();
              for (Running victim : victims) {
                assertThat(c.standings().isAbove(victim.owner())).isTrue();
                assertThat(victim.preemptible()).isTrue();
                assertThat(victim.startedAt().plus(MIN_RUNTIME)).isBeforeOrEqualTo(NOW);
              }
            });
  }

  @Property(tries = 300)
  @Label("the victim set is minimal: no smaller set of allowed victims makes the job fit")
  void minimal(@ForAll long seed) {
    Case c = randomCase(new Random(seed));
    Optional<List<Running>> chosen = choose(c);
    List<Running> allowed =
        c.running().stream()
            .filter(Running::preemptible)
            .filter(r -> !r.owner().equals(c.need().owner()))
            .filter(r -> c.standings().isAbove(r.owner()))
            .filter(r -> !r.startedAt().plus(MIN_RUNTIME).isAfter(NOW))
            .toList();
    int smallest = smallestFitting(c, allowed);
    if (!c.standings().isBelow(c.need().owner())
        || VictimChoice.fits(c.need(), c.free(), c.running())) {
      assertThat(chosen).isEmpty();
    } else if (smallest < 0) {
      assertThat(chosen).isEmpty();
    } else {
      assertThat(chosen).hasValueSatisfying(v -> assertThat(v).hasSize(smallest));
    }
  }

  /**
   * The pass's timeline around one preemption, as the scheduler runs it: the victims are chosen in
   * the pass that finds the owner's job waiting; each stops when its run has saved (at a random
   * moment) or at SIGKILL when its grace ends; while any still runs the node starts nothing else
   * (Preemptions#beforePass) and passes again every second or when one ends; the pass after the
   * last is gone places the held job first. So the wait is bounded when the choice is made in the
   * first pass, and what it frees makes the job fit: what this property checks of the core.
   */
  @Property(tries = 500)
  @Label(
      "an owner below their share whose job preemptible jobs above share keep out waits at most"
          + " the victims' grace and one pass")
  void waitsAtMostGracePlusOnePass(@ForAll long seed) {
    Random random = new Random(seed);
    int gpus = 1 + random.nextInt(3);
    long[] free = new long[gpus];
    List<Running> running = new ArrayList<>();
    Map<String, Duration> grace = new HashMap<>();
    for (int g = 0; g < gpus; g++) {
      long left = 16 * GIB;
      // alice's preemptible runs fill each GPU, whole or in budgets.
      if (random.nextBoolean()) {
        running.add(aliceRun(running.size(), Map.of(g, 16 * GIB), true, random, grace));
        left = 0;
      } else {
        while (left >= 2 * GIB && random.nextInt(4) != 0) {
          long bytes = Math.min(left, (1 + random.nextInt(8)) * GIB);
          running.add(aliceRun(running.size(), Map.of(g, bytes), false, random, grace));
          left -= bytes;
        }
      }
      free[g] = left;
    }
    List<Gpu> gpuList = new ArrayList<>();
    for (int g = 0; g < gpus; g++) {
      gpuList.add(new Gpu(g, free[g]));
    }
    boolean whole = random.nextBoolean();
    Need bobs =
        new Need(
            "bob",
            1 + random.nextInt(gpus),
            whole ? 16 * GIB : (1 + random.nextInt(16)) * GIB,
            whole,
            1000,
            0);
    Free node = new Free(gpuList, 64_000, 256 * GIB);
    Standings standings = new Standings(Map.of("alice", 1.0, "bob", 0.0), 0.5);
    if (VictimChoice.fits(bobs, node, running)) {
      return; // nothing keeps bob's job out: the pass places it at once
    }
    assertThat(VictimChoice.fitsWithout(bobs, node, running, running))
        .as("alice's runs hold what bob needs")
        .isTrue();

    Optional<List<Running>> chosen =
        VictimChoice.choose(bobs, node, running, standings, NOW, MIN_RUNTIME);

    assertThat(chosen).as("chosen in the pass that finds bob waiting").isPresent();
    List<Running> victims = chosen.get();
    assertThat(VictimChoice.fitsWithout(bobs, node, running, victims))
        .as("once they are gone, the next pass places bob's job")
        .isTrue();
    Duration longest = Duration.ZERO;
    long lastGoneMillis = 0;
    for (Running victim : victims) {
      Duration itsGrace = grace.get(victim.jobId());
      longest = longest.compareTo(itsGrace) > 0 ? longest : itsGrace;
      // It saves and exits within its grace, or SIGKILL ends it then.
      long gone = random.nextBoolean() ? itsGrace.toMillis() : random.nextLong(itsGrace.toMillis());
      lastGoneMillis = Math.max(lastGoneMillis, gone);
    }
    // While victims stop, a pass runs every second (its retry) and at each victim's end; the one
    // the last end wakes places bob's job, within the time of one pass.
    long pass = Duration.ofSeconds(1).toMillis();
    long startsAt = lastGoneMillis + random.nextLong(pass + 1);
    assertThat(Duration.ofMillis(startsAt)).isLessThanOrEqualTo(longest.plusMillis(pass));
  }

  private static Running aliceRun(
      int n, Map<Integer, Long> held, boolean whole, Random random, Map<String, Duration> grace) {
    String id = "alice-" + n;
    grace.put(id, Duration.ofSeconds(1 + random.nextInt(600)));
    return new Running(
        id,
        "alice",
        NOW.minus(MIN_RUNTIME).minusSeconds(random.nextInt(3600)),
        true,
        held,
        whole,
        1000,
        0);
  }

  private static Optional<List<Running>> choose(Case c) {
    return VictimChoice.choose(c.need(), c.free(), c.running(), c.standings(), NOW, MIN_RUNTIME);
  }

  /** The size of the smallest fitting subset, by brute force; -1 for none. */
  private static int smallestFitting(Case c, List<Running> allowed) {
    int best = -1;
    for (int mask = 1; mask < (1 << allowed.size()); mask++) {
      List<Running> subset = new ArrayList<>();
      for (int i = 0; i < allowed.size(); i++) {
        if ((mask & (1 << i)) != 0) {
          subset.add(allowed.get(i));
        }
      }
      if ((best < 0 || subset.size() < best)
          && VictimChoice.fitsWithout(c.need(), c.free(), c.running(), subset)) {
        best = subset.size();
      }
    }
    return best;
  }

  static Case randomCase(Random random) {
    int gpus = 1 + random.nextInt(3);
    long[] free = new long[gpus];
    for (int g = 0; g < gpus; g++) {
      free[g] = 16 * GIB;
    }
    boolean[] whole = new boolean[gpus];
    List<Running> running = new ArrayList<>();
    long cores = 16_000;
    long memory = 64 * GIB;
    int jobs = random.nextInt(8);
    for (int j = 0; j < jobs; j++) {
      String owner = OWNERS[random.nextInt(OWNERS.length)];
      int gpu = random.nextInt(gpus);
      boolean takesWhole = random.nextInt(3) == 0;
      Map<Integer, Long> held = new HashMap<>();
      if (takesWhole) {
        if (whole[gpu] || free[gpu] < 16 * GIB) {
          continue;
        }
        whole[gpu] = true;
        held.put(gpu, 16 * GIB);
        free[gpu] = 0;
      } else if (random.nextBoolean()) {
        long bytes = (1 + random.nextInt(8)) * GIB;
        if (whole[gpu] || free[gpu] < bytes) {
          continue;
        }
        held.put(gpu, bytes);
        free[gpu] -= bytes;
      }
      long jobCores = 1000L * (1 + random.nextInt(4));
      long jobMemory = random.nextBoolean() ? 0 : (1 + random.nextInt(16)) * GIB;
      if (jobCores > cores || jobMemory > memory) {
        continue;
      }
      cores -= jobCores;
      memory -= jobMemory;
      running.add(
          new Running(
              "job-" + j,
              owner,
              NOW.minus(Duration.ofMinutes(random.nextInt(20))),
              random.nextInt(4) != 0,
              held,
              takesWhole,
              jobCores,
              jobMemory));
    }
    List<Gpu> gpuList = new ArrayList<>();
    for (int g = 0; g < gpus; g++) {
      gpuList.add(new Gpu(g, free[g]));
    }
    Map<String, Double> positions = new HashMap<>();
    for (String owner : OWNERS) {
      positions.put(owner, random.nextInt(5) / 4.0);
    }
    boolean whole1 = random.nextBoolean();
    Need need =
        new Need(
            OWNERS[random.nextInt(OWNERS.length)],
            random.nextInt(3),
            whole1 ? 16 * GIB : (1 + random.nextInt(16)) * GIB,
            whole1,
            1000L * (1 + random.nextInt(6)),
            random.nextBoolean() ? 0 : (1 + random.nextInt(32)) * GIB);
    return new Case(need, new Free(gpuList, cores, memory), running, new Standings(positions, 0.5));
  }
}
