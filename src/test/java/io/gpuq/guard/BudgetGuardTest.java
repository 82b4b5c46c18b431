package io.gpuq.guard;

import static org.assertj.core.api.Assertions.assertThat;

import io.gpuq.gpu.GpuUsage;
import io.gpuq.job.JobPlacement;
import io.gpuq.launch.StopReason;
import io.gpuq.launch.WorkerExit;
import io.gpuq.placement.PlacedGpu;
import io.gpuq.schedule.LocalWorkers;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

@DisplayName("The budget guard, over real workers")
class BudgetGuardTest {

  private static final long GIB = 1L << 30;
  private static final long MIB = 1L << 20;
  private static final JobPlacement ONE_GIB_ON_GPU_0 =
      new JobPlacement("node-1", List.of(new PlacedGpu(0, "GPU-0", GIB, 8 * GIB)), 0.125);

  @TempDir Path dataDir;
  private LocalWorkers local;
  private final List<BudgetGuard.Action> actions = new ArrayList<>();

  @BeforeEach
  void aWorkerWithOneGibOnGpu0() {
    local = new LocalWorkers(dataDir, Clock.systemUTC());
    local.launch("job-1", null, ONE_GIB_ON_GPU_0, "/bin/sleep", "60");
  }

  @AfterEach
  void killWhatIsLeft() {
    local.close();
  }

  private BudgetGuard guard(BudgetGuard.Policy policy) {
    // 10% or 64 MiB over the budget, whichever is more, for two polls in a row.
    return new BudgetGuard(
        local.workers(), policy, new BudgetGuard.Tolerance(0.1, 64 * MIB), 2, actions::add);
  }

  private static GpuUsage using(long bytes) {
    return new GpuUsage(Instant.EPOCH, List.of(), Map.of(), Map.of("job-1", Map.of(0, bytes)));
  }

  @Test
  void stops_a_job_over_its_budget_and_tolerance_for_two_polls_in_a_row() throws Exception {
    BudgetGuard guard = guard(BudgetGuard.Policy.STOP);

    guard.accept(using(GIB + 200 * MIB));
    assertThat(actions).as("one poll over is not enough").isEmpty();
    guard.accept(using(GIB + 200 * MIB));

    WorkerExit exit = local.exitOf("job-1").get(30, TimeUnit.SECONDS);
    assertThat(exit.stopReason()).isEqualTo(StopReason.OVER_BUDGET);
    assertThat(exit.stopDetail())
        .isEqualTo("it used 1.19GiB on GPU 0, over its budget of 1GiB (+102.39MiB tolerance)");
    assertThat(actions)
        .containsExactly(
            new BudgetGuard.Action("job-1", 0, GIB + 200 * MIB, GIB, BudgetGuard.Policy.STOP));
  }

  @Test
  void a_poll_back_within_the_tolerance_starts_the_count_again() {
    BudgetGuard guard = guard(BudgetGuard.Policy.STOP);

    guard.accept(using(GIB + 200 * MIB));
    guard.accept(using(GIB + 100 * MIB)); // within 10%
    guard.accept(using(GIB + 200 * MIB));

    assertThat(actions).isEmpty();
    assertThat(local.workers().live())
        .singleElement()
        .satisfies(worker -> assertThat(worker.stopReason()).isNull());
  }

  @Test
  void with_the_warn_policy_reports_once_and_stops_nothing() {
    BudgetGuard guard = guard(BudgetGuard.Policy.WARN);

    for (int poll = 0; poll < 5; poll++) {
      guard.accept(using(2 * GIB));
    }

    assertThat(actions)
        .containsExactly(new BudgetGuard.Action("job-1", 0, 2 * GIB, GIB, BudgetGuard.Policy.WARN));
    assertThat(local.workers().live())
        .singleElement()
        .satisfies(worker -> assertThat(worker.stopReason()).isNull());
  }
}
