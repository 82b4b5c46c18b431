package io.gpuq.schedule;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.gpuq.fairshare.Capacity;
import io.gpuq.fairshare.Held;
import io.gpuq.fairshare.OwnerTerms;
import io.gpuq.fairshare.Resource;
import io.gpuq.placement.PlacedGpu;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

@DisplayName("The owners' report: every owner's jobs, holdings and standing, and the totals")
class OwnersReportTest {

  private static final long GIB = 1L << 30;
  private static final Instant NOW = Instant.parse("2026-12-03T09:00:00Z");

  /** Two GPUs of 16 GiB and 8 CPU slots. */
  private static final Capacity CLUSTER = new Capacity(32 * GIB, 2, 8);

  private static OwnerCounts.Counted running(long jobs, double gpus) {
    return new OwnerCounts.Counted(jobs, gpus, jobs, 0, 0);
  }

  private static OwnerCounts.Counted queued(long jobs) {
    return new OwnerCounts.Counted(0, 0, 0, 0, jobs);
  }

  @Test
  void lists_every_configured_owner_and_every_owner_with_jobs_lowest_position_first() {
    OwnersReport report =
        OwnersReport.of(
            NOW,
            Map.of("alice", new OwnerTerms(1), "bob", new OwnerTerms(2), "idle", new OwnerTerms(1)),
            Map.of("alice", running(2, 1), "bob", running(1, 0.5), "carol", queued(3)),
            Map.of("alice", new Held(16 * GIB, 0, 0), "bob", new Held(8 * GIB, 0, 0)),
            Map.of("alice", 0.1),
            CLUSTER);

    // alice: (0.5 + 0.1) / 1; bob: 0.25 / 2; carol and idle hold nothing.
    assertThat(report.owners())
        .extracting(OwnersReport.Owner::name)
        .containsExactly("carol", "idle", "bob", "alice");
    OwnersReport.Owner alice = report.owner("alice").orElseThrow();
    assertThat(alice.position()).isCloseTo(0.6, within(1e-12));
    assertThat(alice.dominantShare()).isCloseTo(0.5, within(1e-12));
    assertThat(alice.dominantResource()).isEqualTo(Resource.GPU_MEMORY);
    assertThat(report.owner("bob").orElseThrow().position()).isCloseTo(0.125, within(1e-12));
    assertThat(report.owner("carol").orElseThrow().share()).isEqualTo(1);
    assertThat(report.owner("carol").orElseThrow().jobs().queuedJobs()).isEqualTo(3);
  }

  @Test
  void the_totals_add_up_every_owner_and_carry_the_capacity() {
    OwnersReport report =
        OwnersReport.of(
            NOW,
            Map.of("alice", OwnerTerms.DEFAULT),
            Map.of("alice", running(2, 1), "bob", running(1, 0.5), "carol", queued(3)),
            Map.of("alice", new Held(16 * GIB, 1, 0), "bob", new Held(8 * GIB, 0, 1)),
            Map.of(),
            CLUSTER);

    OwnersReport.Totals totals = report.totals();
    assertThat(totals.jobs().runningJobs()).isEqualTo(3);
    assertThat(totals.jobs().queuedJobs()).isEqualTo(3);
    assertThat(totals.jobs().gpus()).isEqualTo(1.5);
    assertThat(totals.held()).isEqualTo(new Held(24 * GIB, 1, 1));
    assertThat(totals.capacity()).isEqualTo(CLUSTER);
  }

  @Test
  void the_standing_is_the_one_a_scheduling_pass_computes() {
    Held held = new Held(4 * GIB, 1, 0);
    OwnersReport report =
        OwnersReport.of(
            NOW,
            Map.of("alice", new OwnerTerms(3)),
            Map.of(),
            Map.of("alice", held),
            Map.of("alice", 0.3),
            CLUSTER);

    io.gpuq.fairshare.Standing pass = new io.gpuq.fairshare.Standing(3, held, 0.3);
    OwnersReport.Owner alice = report.owner("alice").orElseThrow();
    assertThat(alice.position()).isEqualTo(pass.position(CLUSTER));
    assertThat(alice.dominantResource()).isEqualTo(Resource.WHOLE_GPUS);
  }

  @Nested
  @DisplayName("GPUs a running job holds")
  class GpusHeld {

    private final PlacedGpu quarter = new PlacedGpu(0, "GPU-0", 4 * GIB, 16 * GIB);

    @Test
    void a_whole_gpu_job_holds_each_of_its_gpus() {
      assertThat(OwnerCounts.gpusOf(2, null, null, List.of())).isEqualTo(2);
    }

    @Test
    void a_fraction_counts_as_asked_on_each_gpu() {
      assertThat(OwnerCounts.gpusOf(2, null, 0.4, List.of(quarter, quarter))).isEqualTo(0.8);
    }

    @Test
    void a_budget_in_bytes_counts_its_part_of_each_gpus_memory() {
      assertThat(OwnerCounts.gpusOf(1, 4 * GIB, null, List.of(quarter))).isEqualTo(0.25);
    }

    @Test
    void a_placement_without_the_gpus_total_counts_nothing_rather_than_a_guess() {
      PlacedGpu older = new PlacedGpu(0, "GPU-0", 4 * GIB, 0);
      assertThat(OwnerCounts.gpusOf(1, 4 * GIB, null, List.of(older))).isZero();
    }

    @Test
    void a_cpu_only_job_holds_no_gpu() {
      assertThat(OwnerCounts.gpusOf(0, null, null, List.of())).isZero();
    }
  }
}
