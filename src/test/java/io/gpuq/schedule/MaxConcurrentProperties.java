package io.gpuq.schedule;

import static io.gpuq.job.JobBuilder.aQueuedJob;
import static org.assertj.core.api.Assertions.assertThat;

import io.gpuq.job.ClaimedJob;
import io.gpuq.job.InMemoryJobStore;
import io.gpuq.job.Job;
import io.gpuq.job.JobFilter;
import io.gpuq.job.JobPlacement;
import io.gpuq.job.JobState;
import io.gpuq.job.QueueHead;
import io.gpuq.job.QueuedJob;
import io.gpuq.job.SweepTrial;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;

/**
 * {@code maxConcurrent} is never exceeded, whatever the interleaving of several nodes' passes (each
 * reads the queue, then claims what it may start, possibly after another node's claim) and of
 * trials' ends.
 */
class MaxConcurrentProperties {

  /** One step of the interleaving: node {@code node} reads, or claims, or a running trial ends. */
  record Step(int kind, int node, int pick) {}

  @Provide
  Arbitrary<List<Step>> steps() {
    return Combinators.combine(
            Arbitraries.integers().between(0, 2),
            Arbitraries.integers().between(0, 2),
            Arbitraries.integers().between(0, 1000))
        .as(Step::new)
        .list()
        .ofMinSize(1)
        .ofMaxSize(60);
  }

  @Property(tries = 300)
  void running_trials_of_a_sweep_never_outnumber_its_limit(
      @ForAll @IntRange(min = 1, max = 4) int limit,
      @ForAll @IntRange(min = 1, max = 12) int trials,
      @ForAll @IntRange(min = 1, max = 6) int slotsPerPass,
      @ForAll("steps") List<Step> steps) {
    InMemoryJobStore store = new InMemoryJobStore();
    store.limitTrials("sweep", limit);
    for (int n = 0; n < trials; n++) {
      aQueuedJob().trialOf(new SweepTrial("sweep", n, "{}")).in(store);
    }
    aQueuedJob().in(store);
    Map<Integer, List<QueuedJob>> readByNode = new HashMap<>();
    Instant now = Instant.parse("2026-12-01T00:00:00Z");

    for (Step step : steps) {
      now = now.plusSeconds(1);
      switch (step.kind()) {
        case 0 -> {
          QueueHead head = store.queueHead(slotsPerPass, 0);
          readByNode.put(
              step.node(),
              TrialTurns.within(
                  head.cpuOnly(), head.limitedSweeps(), new HashMap<>(), new HashMap<>()));
        }
        case 1 -> {
          Map<String, JobPlacement> placements = new LinkedHashMap<>();
          for (QueuedJob job : readByNode.getOrDefault(step.node(), List.of())) {
            placements.put(job.id(), JobPlacement.cpuOnly("node-" + step.node()));
          }
          List<ClaimedJob> claimed = store.claim(placements, now);
          assertThat(claimed.size()).isLessThanOrEqualTo(placements.size());
          readByNode.remove(step.node());
        }
        default -> {
          List<Job> running = running(store);
          if (!running.isEmpty()) {
            store.cancel(running.get(step.pick() % running.size()).id(), now);
          }
        }
      }
      assertThat(running(store).stream().filter(job -> job.sweepTrial().isPresent()))
          .hasSizeLessThanOrEqualTo(limit);
    }
  }

  private static List<Job> running(InMemoryJobStore store) {
    return new ArrayList<>(
        store.page(new JobFilter(null, JobState.RUNNING, Map.of(), null, 1000)).items());
  }
}
