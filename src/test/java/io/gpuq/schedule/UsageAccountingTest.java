package io.gpuq.schedule;

import static io.gpuq.job.JobBuilder.aRunningJob;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.gpuq.fairshare.Capacity;
import io.gpuq.fairshare.InMemoryUsageLedger;
import io.gpuq.job.InMemoryJobStore;
import io.gpuq.job.JobService;
import io.gpuq.support.SettableClock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

@DisplayName("Each node adds its own jobs' usage to the shared ledger, and reads everyone's back")
class UsageAccountingTest {

  static final Duration HALF_LIFE = Duration.ofHours(1);

  final SettableClock clock = new SettableClock(Instant.parse("2026-12-03T06:00:00Z"));
  final InMemoryJobStore store = new InMemoryJobStore();
  final JobService jobs = new JobService(store, clock, List.of());
  final InMemoryUsageLedger ledger = new InMemoryUsageLedger(HALF_LIFE);
  // Two nodes of four CPU slots each.
  final Capacity cluster = new Capacity(0, 0, 8);

  UsageAccounting on(String node) {
    return new UsageAccounting(
        jobs,
        new FairShareInputs(Map.of(), () -> cluster, ledger, HALF_LIFE, Duration.ofSeconds(30)),
        () -> cluster,
        node,
        clock);
  }

  @Test
  void twoNodesEachAddTheirOwnJobsOnce() {
    aRunningJob().ownedBy("alice").on("node-1").in(store);
    aRunningJob().ownedBy("alice").on("node-2").in(store);
    aRunningJob().ownedBy("bob").on("node-2").in(store);
    UsageAccounting one = on("node-1");
    UsageAccounting two = on("node-2");
    one.runOnce();
    two.runOnce();
    // The first run adds nothing: it does not know since when its jobs ran.
    assertThat(one.recentUsage()).isEmpty();

    clock.advance(Duration.ofSeconds(60));
    one.runOnce();
    two.runOnce();

    // alice held 2 of 8 slots for 60 s, bob 1 of 8: dominant-share-seconds 15 and 7.5.
    double toAverage = Math.log(2) / HALF_LIFE.toSeconds();
    assertThat(two.recentUsage().get("alice")).isCloseTo(15 * toAverage, within(1e-12));
    assertThat(two.recentUsage().get("bob")).isCloseTo(7.5 * toAverage, within(1e-12));
  }

  @Test
  void recentUsageHalvesEveryHalfLife() {
    aRunningJob().ownedBy("alice").on("node-1").in(store);
    UsageAccounting one = on("node-1");
    one.runOnce();
    clock.advance(Duration.ofSeconds(600));
    one.runOnce();
    double afterRun = one.recentUsage().get("alice");

    UsageAccounting reader = on("node-9");
    clock.advance(HALF_LIFE);
    reader.runOnce();
    assertThat(reader.recentUsage().get("alice")).isCloseTo(afterRun / 2, within(1e-12));
  }

  @Test
  void aRestartedNodeOrdersByTheStoredUsageBeforeItsFirstRun() {
    aRunningJob().ownedBy("alice").on("node-1").in(store);
    UsageAccounting before = on("node-1");
    before.runOnce();
    clock.advance(Duration.ofSeconds(60));
    before.runOnce();

    // Its duty runs one interval after the start; its first passes ask before that.
    UsageAccounting restarted = on("node-1");
    assertThat(restarted.recentUsage().get("alice"))
        .isCloseTo(before.recentUsage().get("alice"), within(1e-12));
  }
}
