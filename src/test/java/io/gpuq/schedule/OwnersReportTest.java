package io.gpuq.schedule;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.gpuq.fairshare.Capacity;
import io.gpuq.fairshare.Held;
import io.gpuq.fairshare.OwnerTerms;
import io.gpuq.fairshare.Resource;
import io.gpuq.text.Cpus;
import java.time.Instant;
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

  /** Running jobs holding this much GPU memory in whole GPUs, one core each. */
  private static Held running(long jobs, long wholeGpus, long gpuMemoryBytes) {
    return new Held(gpuMemoryBytes, wholeGpus, 0, Cpus.of(jobs), 0, jobs, 0, 0);
  }

  @Test
  void lists_every_configured_owner_and_every_owner_with_jobs_lowest_position_first() {
    OwnersReport report =
        OwnersReport.of(
            NOW,
            Map.of("alice", new OwnerTerms(1), "bob", new OwnerTerms(2), "idle", new OwnerTerms(1)),
            Map.of("carol", 3L),
            Map.of("alice", running(2, 0, 16 * GIB), "bob", running(1, 0, 8 * GIB)),
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
    assertThat(report.owner("carol").orElseThrow().queuedJobs()).isEqualTo(3);
  }

  @Test
  void the_totals_add_up_every_owner_and_carry_the_capacity() {
    OwnersReport report =
        OwnersReport.of(
            NOW,
            Map.of("alice", OwnerTerms.DEFAULT),
            Map.of("carol", 3L),
            Map.of(
                "alice",
                running(2, 1, 16 * GIB),
                "bob",
                new Held(8 * GIB, 0, 0, Cpus.of(1), 0, 1, 0.5, 0)),
            Map.of(),
            CLUSTER);

    OwnersReport.Totals totals = report.totals();
    assertThat(totals.held().jobs()).isEqualTo(3);
    assertThat(totals.queuedJobs()).isEqualTo(3);
    assertThat(totals.gpus()).isEqualTo(1.5);
    assertThat(totals.held().cores()).isEqualTo(Cpus.of(3));
    assertThat(totals.held()).isEqualTo(new Held(24 * GIB, 1, 0, Cpus.of(3), 0, 3, 0.5, 0));
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
  @DisplayName("GPUs an owner holds, as max-gpus counts them")
  class GpusHeld {

    @Test
    void whole_gpus_count_one_each_and_fractions_as_asked() {
      Held held = new Held(24 * GIB, 1, 0, Cpus.of(2), 0, 2, 0.4, 0);
      OwnersReport report =
          OwnersReport.of(NOW, Map.of(), Map.of(), Map.of("alice", held), Map.of(), CLUSTER);

      assertThat(report.owner("alice").orElseThrow().gpus()).isCloseTo(1.4, within(1e-12));
    }

    @Test
    void a_budget_in_bytes_counts_as_its_part_of_the_clusters_average_gpu() {
      // 4 GiB asked on a cluster of two 16 GiB GPUs: a quarter of a GPU.
      Held held = new Held(4 * GIB, 0, 0, Cpus.of(1), 0, 1, 0, 4 * GIB);
      OwnersReport report =
          OwnersReport.of(NOW, Map.of(), Map.of(), Map.of("alice", held), Map.of(), CLUSTER);

      assertThat(report.owner("alice").orElseThrow().gpus()).isEqualTo(0.25);
    }

    @Test
    void an_owner_with_only_cpu_only_jobs_holds_no_gpu() {
      Held held = new Held(0, 0, 2, Cpus.of(2), 0, 2, 0, 0);
      OwnersReport report =
          OwnersReport.of(NOW, Map.of(), Map.of(), Map.of("alice", held), Map.of(), CLUSTER);

      assertThat(report.owner("alice").orElseThrow().gpus()).isZero();
    }
  }
}
