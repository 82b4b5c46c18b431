package io.gpuq.schedule;

import static io.gpuq.placement.PlacementFixtures.NOW;
import static io.gpuq.placement.PlacementFixtures.aGpu;
import static io.gpuq.placement.PlacementFixtures.aPolicy;
import static io.gpuq.placement.PlacementFixtures.aRequest;
import static io.gpuq.placement.PlacementFixtures.gib;
import static io.gpuq.placement.PlacementFixtures.node;
import static io.gpuq.placement.PlacementFixtures.queue;
import static org.assertj.core.api.Assertions.assertThat;

import io.gpuq.placement.GpuCapacity;
import io.gpuq.placement.HostCapacity;
import io.gpuq.placement.PlacementFixtures.RequestBuilder;
import io.gpuq.placement.PlacementPlan;
import io.gpuq.placement.Placer;
import io.gpuq.text.Cpus;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** A queued job's reason, in words, from what a placement pass decided. */
@DisplayName("Why a queued job waits, in words")
class QueuedReasonsTest {

  private static Map<String, String> reasons(
      Placer placer, List<GpuCapacity> gpus, int cpuSlots, RequestBuilder... requests) {
    PlacementPlan plan = placer.plan(gpus, cpuSlots, queue(requests), NOW);
    return plan.waits().asMap().entrySet().stream()
        .collect(
            java.util.stream.Collectors.toMap(
                Map.Entry::getKey, e -> QueuedReasons.forWait(e.getValue(), plan.mostFree(), "a")));
  }

  @Test
  void a_job_that_does_not_fit_names_what_it_needs_and_the_most_free_gpu() {
    Placer placer = new Placer(aPolicy().build());
    List<GpuCapacity> gpus =
        node(
            aGpu().total(gib(16)).reserved(gib(14)),
            aGpu().total(gib(16)).reserved(gib(16) - gib(4.1)));

    Map<String, String> reasons = reasons(placer, gpus, 0, aRequest().id("big").bytes(gib(6)));

    assertThat(reasons)
        .containsEntry(
            "big", "waiting for 6GiB on one GPU; most free is 4.09GiB on GPU 1 of node a");
  }

  @Test
  void a_job_of_several_whole_gpus_says_so() {
    Placer placer = new Placer(aPolicy().build());
    List<GpuCapacity> gpus = node(aGpu().total(gib(16)).reserved(gib(2)), aGpu().total(gib(16)));

    assertThat(reasons(placer, gpus, 0, aRequest().id("pair").gpus(2).wholeGpus()))
        .containsEntry(
            "pair", "waiting for 2 whole free GPUs; most free is 16GiB on GPU 1 of node a");
  }

  @Test
  void a_job_held_back_by_start_spacing_names_the_gpu() {
    Placer placer = new Placer(aPolicy().spacing(Duration.ofSeconds(30)).build());
    List<GpuCapacity> gpus = node(aGpu().total(gib(16)).startedAgo(Duration.ofSeconds(5)));

    assertThat(reasons(placer, gpus, 0, aRequest().id("next").bytes(gib(2))))
        .containsEntry("next", "start spacing on GPU 0 of node a");
  }

  @Test
  void jobs_behind_a_reservation_name_the_job_it_is_kept_for() {
    Placer placer = new Placer(aPolicy().maxWait(Duration.ofMinutes(10)).build());
    List<GpuCapacity> gpus = node(aGpu().total(gib(16)).reserved(gib(12)));

    Map<String, String> reasons =
        reasons(
            placer,
            gpus,
            0,
            aRequest().id("old").bytes(gib(8)).waiting(Duration.ofHours(1)),
            aRequest().id("small").bytes(gib(1)));

    assertThat(reasons)
        .containsEntry("old", "waiting for 8GiB on one GPU; most free is 4GiB on GPU 0 of node a")
        .containsEntry("small", "a GPU is reserved for job old, which has waited longest");
  }

  @Test
  void a_job_too_big_for_this_node_says_it_can_never_run_here() {
    Placer placer = new Placer(aPolicy().build());

    assertThat(
            reasons(placer, node(aGpu().total(gib(16))), 0, aRequest().id("huge").bytes(gib(40))))
        .hasEntrySatisfying(
            "huge",
            reason ->
                assertThat(reason).startsWith("cannot run on node a: asks for 40GiB per GPU"));
  }

  @Test
  void a_cpu_only_job_past_the_free_slots_waits_for_one() {
    Placer placer = new Placer(aPolicy().build());

    assertThat(
            reasons(
                placer,
                List.of(),
                1,
                aRequest().id("first").cpuOnly(),
                aRequest().id("second").cpuOnly()))
        .containsOnlyKeys("second")
        .containsEntry("second", "waiting for a free CPU slot on node a");
  }

  @Test
  void sweeps_and_jobs_beyond_the_lookahead_have_words_of_their_own() {
    assertThat(QueuedReasons.sweepFull(16)).isEqualTo("sweep at maxConcurrent 16");
    assertThat(QueuedReasons.behindHead(1000))
        .isEqualTo("behind the first 1000 queued jobs, which the last scheduling pass considered");
    assertThat(QueuedReasons.notSelected(Map.of("pool", "a100"), "a"))
        .isEqualTo("node a does not match nodeSelector {pool=a100}");
  }

  @Test
  void a_reservation_names_its_job_which_can_be_told_and_left_out_for_another_owner() {
    String reason =
        QueuedReasons.forWait(new io.gpuq.placement.Wait.ReservedFor("01JD5Q8Z6Y3M"), null, "a");

    assertThat(QueuedReasons.jobNamedIn(reason)).contains("01JD5Q8Z6Y3M");
    assertThat(QueuedReasons.withoutJobId(reason))
        .isEqualTo("a GPU is reserved for another owner's job, which has waited longest");
  }

  private static Map<String, String> reasons(HostCapacity host, RequestBuilder... requests) {
    PlacementPlan plan =
        new Placer(aPolicy().maxWait(Duration.ofMinutes(10)).build())
            .plan(List.of(), 8, host, queue(requests), NOW);
    return plan.waits().asMap().entrySet().stream()
        .collect(
            java.util.stream.Collectors.toMap(
                Map.Entry::getKey, e -> QueuedReasons.forWait(e.getValue(), plan.mostFree(), "a")));
  }

  @Test
  void a_job_short_of_cores_names_how_many_it_needs_and_how_many_are_free() {
    var host = new HostCapacity(4, gib(64), Cpus.of(2), 0);

    assertThat(reasons(host, aRequest().id("wide").cpuOnly().cpus(4)))
        .containsEntry("wide", "waiting for 4 cores; 2 free on node a");
    assertThat(QueuedReasons.noCores(Cpus.ONE, Cpus.ZERO, "a"))
        .isEqualTo("waiting for 1 core; 0 free on node a");
  }

  @Test
  void a_job_short_of_host_memory_names_what_it_needs_and_what_is_free() {
    var host = new HostCapacity(8, gib(32), Cpus.of(1), gib(22.5));

    assertThat(reasons(host, aRequest().id("big").cpuOnly().hostMemory(gib(16))))
        .containsEntry("big", "waiting for 16GiB of host memory; 9.5GiB free on node a");
  }

  @Test
  void a_reservation_of_cores_names_its_job_which_can_be_left_out_for_another_owner() {
    var host = new HostCapacity(4, gib(64), Cpus.of(3), 0);

    Map<String, String> reasons =
        reasons(
            host,
            aRequest().id("wide").cpuOnly().cpus(4).waiting(Duration.ofHours(1)),
            aRequest().id("narrow").cpuOnly().cpus(1));

    String reason = reasons.get("narrow");
    assertThat(reason)
        .isEqualTo("cores and host memory are reserved for job wide, which has waited longest");
    assertThat(QueuedReasons.jobNamedIn(reason)).contains("wide");
    assertThat(QueuedReasons.withoutJobId(reason))
        .isEqualTo(
            "cores and host memory are reserved for another owner's job, which has waited"
                + " longest");
  }

  @Test
  void other_reasons_name_no_job_and_stay_as_they_are() {
    String reason = QueuedReasons.noCpuSlot("a");

    assertThat(QueuedReasons.jobNamedIn(reason)).isEmpty();
    assertThat(QueuedReasons.withoutJobId(reason)).isEqualTo(reason);
    assertThat(QueuedReasons.jobNamedIn(null)).isEmpty();
  }

  @Test
  void a_job_that_waited_for_another_owners_turn_names_that_owner_and_its_owners_figures() {
    String reason =
        QueuedReasons.turnFirst(
            "bob",
            "alice",
            new io.gpuq.fairshare.Capacity.Dominant(io.gpuq.fairshare.Resource.GPU_MEMORY, 0.75),
            0,
            1,
            2);
    assertThat(reason)
        .isEqualTo("bob's turn first: alice holds 75% of the GPU memory at share 1 of 2");
    assertThat(
            QueuedReasons.turnFirst(
                "bob",
                "alice",
                new io.gpuq.fairshare.Capacity.Dominant(io.gpuq.fairshare.Resource.WHOLE_GPUS, 0.5),
                0.3,
                1.5,
                4.5))
        .isEqualTo(
            "bob's turn first: alice holds 50% of the GPUs and used 30% recently at share 1.5 of"
                + " 4.5");
  }

  @Test
  void to_a_submitter_the_owner_whose_turn_came_first_is_another_owner() {
    String reason = "bob's turn first: alice holds 75% of the GPU memory at share 1 of 2";
    assertThat(QueuedReasons.withoutOtherOwner(reason, "alice"))
        .isEqualTo("another owner's turn first: alice holds 75% of the GPU memory at share 1 of 2");
    assertThat(QueuedReasons.withoutOtherOwner(reason, "bob")).isEqualTo(reason);
    assertThat(QueuedReasons.withoutOtherOwner("waiting for 8GiB on one GPU", "alice"))
        .isEqualTo("waiting for 8GiB on one GPU");
    assertThat(QueuedReasons.withoutOtherOwner(null, "alice")).isNull();
  }
}
