package io.gpuq.placement;

import static io.gpuq.placement.PlacementFixtures.NOW;
import static io.gpuq.placement.PlacementFixtures.aGpu;
import static io.gpuq.placement.PlacementFixtures.aPolicy;
import static io.gpuq.placement.PlacementFixtures.aRequest;
import static io.gpuq.placement.PlacementFixtures.emptyNode;
import static io.gpuq.placement.PlacementFixtures.gib;
import static io.gpuq.placement.PlacementFixtures.mib;
import static io.gpuq.placement.PlacementFixtures.node;
import static io.gpuq.placement.PlacementFixtures.queue;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.gpuq.placement.PlacementFixtures.RequestBuilder;
import io.gpuq.text.Cpus;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

class PlacerTest {

  private static final int NO_CPU_SLOTS = 0;

  private static PlacementPlan plan(Placer placer, List<GpuCapacity> gpus, RequestBuilder... q) {
    return placer.plan(gpus, NO_CPU_SLOTS, queue(q), NOW);
  }

  /** A start as these tests state it: which job, with which budget, on which GPUs. */
  private record Start(String jobId, long budget, List<Integer> gpus) {}

  private static Start start(String jobId, long budget, Integer... gpus) {
    return new Start(jobId, budget, List.of(gpus));
  }

  private static List<Start> starts(PlacementPlan plan) {
    return plan.starts().stream()
        .map(d -> new Start(d.jobId(), d.perGpuBudgetBytes(), d.gpuIndices()))
        .toList();
  }

  private static List<String> started(PlacementPlan plan) {
    return plan.starts().stream().map(PlacementDecision::jobId).toList();
  }

  @Nested
  @DisplayName("memory")
  class Memory {

    private final Placer placer = aPolicy().placer();

    @Test
    @DisplayName("a 6 GiB job goes to the fuller GPU that still fits")
    void bestFit() {
      var gpus =
          node(aGpu(), aGpu().reserved(gib(2)), aGpu().reserved(gib(8)), aGpu().reserved(gib(12)));

      var plan = plan(placer, gpus, aRequest().id("a").bytes(gib(6)));

      assertThat(starts(plan)).containsExactly(start("a", gib(6), 2));
    }

    @Test
    @DisplayName("a start names each GPU as the worker needs it: index, uuid, total and budget")
    void placedGpus() {
      var gpus = node(aGpu().total(gib(16)), aGpu().total(gib(80)).reserved(gib(60)));

      var plan = plan(placer, gpus, aRequest().id("a").gpus(2).bytes(gib(6)));

      assertThat(plan.starts())
          .containsExactly(
              new PlacementDecision(
                  "a",
                  List.of(
                      new PlacedGpu(0, "GPU-0", gib(6), gib(16)),
                      new PlacedGpu(1, "GPU-1", gib(6), gib(80)))));
    }

    @Test
    @DisplayName("a job goes to an empty GPU when no partly used GPU has room")
    void emptyGpuWhenNothingElseFits() {
      var gpus = node(aGpu().reserved(gib(12)), aGpu());

      var plan = plan(placer, gpus, aRequest().id("a").bytes(gib(6)));

      assertThat(starts(plan)).containsExactly(start("a", gib(6), 1));
    }

    @Test
    @DisplayName("budget jobs prefer a GPU that holds work over an empty one, even a smaller one")
    void busyGpusBeforeEmptyOnes() {
      var gpus = node(aGpu().total(gib(16)), aGpu().total(gib(80)).reserved(gib(40)));

      var plan = plan(placer, gpus, aRequest().id("a").bytes(gib(6)));

      assertThat(starts(plan)).containsExactly(start("a", gib(6), 1));
    }

    @Test
    @DisplayName("a fraction is of that GPU's memory minus headroom")
    void fractionOfSchedulableMemory() {
      var placer = aPolicy().headroom(Headroom.ofBytes(gib(1))).placer();

      var plan = plan(placer, emptyNode(1, gib(16)), aRequest().id("a").fraction(0.5));

      assertThat(starts(plan)).containsExactly(start("a", gib(7.5), 0));
    }

    @Test
    @DisplayName("foreign memory counts: 10 GiB used by others leaves 6 GiB of 16")
    void foreignMemoryCounts() {
      var gpus = node(aGpu().total(gib(16)).foreign(gib(10)));

      assertThat(started(plan(placer, gpus, aRequest().bytes(gib(8))))).isEmpty();
      assertThat(started(plan(placer, gpus, aRequest().id("a").bytes(gib(6)))))
          .containsExactly("a");
    }

    @Test
    @DisplayName("measured use above the reservations counts (a job using more than its budget)")
    void measuredUseCounts() {
      var gpus = node(aGpu().total(gib(16)).reserved(gib(4)).measured(gib(12)));

      assertThat(started(plan(placer, gpus, aRequest().bytes(gib(6))))).isEmpty();
      assertThat(started(plan(placer, gpus, aRequest().id("a").bytes(gib(4)))))
          .containsExactly("a");
    }

    @Test
    @DisplayName("no budget reaches into the headroom")
    void headroomIsKeptFree() {
      var placer = aPolicy().headroom(Headroom.ofBytes(gib(2))).placer();
      var gpus = node(aGpu().total(gib(16)).reserved(gib(4)));

      assertThat(started(plan(placer, gpus, aRequest().bytes(gib(10) + 1)))).isEmpty();
      assertThat(started(plan(placer, gpus, aRequest().id("a").bytes(gib(10)))))
          .containsExactly("a");
    }

    @Test
    @DisplayName("decisions of one pass count against each other")
    void reserveAsYouGo() {
      var plan =
          plan(
              placer,
              emptyNode(1, gib(16)),
              aRequest().id("a").bytes(gib(6)),
              aRequest().id("b").bytes(gib(6)),
              aRequest().id("c").bytes(gib(6)));

      assertThat(starts(plan)).containsExactly(start("a", gib(6), 0), start("b", gib(6), 0));
    }
  }

  @Nested
  @DisplayName("gangs")
  class Gangs {

    private final Placer placer = aPolicy().placer();

    @Test
    @DisplayName("two 2-GPU jobs on 3 GPUs: the second waits holding nothing")
    void secondGangWaitsHoldingNothing() {
      var plan =
          plan(
              placer,
              emptyNode(3, gib(16)),
              aRequest().id("a").gpus(2).bytes(gib(10)),
              aRequest().id("b").gpus(2).bytes(gib(10)),
              aRequest().id("c").gpus(1).bytes(gib(10)));

      assertThat(starts(plan)).containsExactly(start("a", gib(10), 0, 1), start("c", gib(10), 2));
    }

    @Test
    @DisplayName("a gang never puts two of its parts on one GPU")
    void distinctGpus() {
      var gpus = node(aGpu().total(gib(16)), aGpu().total(gib(16)).reserved(gib(14)));

      var plan = plan(placer, gpus, aRequest().gpus(2).bytes(gib(4)));

      assertThat(starts(plan)).isEmpty();
    }

    @Test
    @DisplayName("a fractional gang on GPUs of different sizes gets the smaller budget on each")
    void fractionalGangOnMixedGpus() {
      var gpus = node(aGpu().total(gib(16)), aGpu().total(gib(24)));

      var plan = plan(placer, gpus, aRequest().id("a").gpus(2).fraction(0.5));

      assertThat(starts(plan)).containsExactly(start("a", gib(8), 0, 1));
    }
  }

  @Nested
  @DisplayName("whole GPUs")
  class WholeGpus {

    private final Placer placer = aPolicy().headroom(Headroom.ofBytes(mib(512))).placer();

    @Test
    @DisplayName("a whole-GPU job waits until its GPU is empty, then gets memory minus headroom")
    void waitsForEmptyGpu() {
      var busy = node(aGpu().total(gib(16)).reserved(gib(1)));
      var empty = node(aGpu().total(gib(16)));

      assertThat(plan(placer, busy, aRequest().wholeGpus()).starts()).isEmpty();
      assertThat(starts(plan(placer, empty, aRequest().id("a").wholeGpus())))
          .containsExactly(start("a", gib(16) - mib(512), 0));
    }

    @Test
    @DisplayName("measured use within the headroom is negligible, beyond it is not")
    void negligibleMeasuredUse() {
      var quiet = node(aGpu().total(gib(16)).foreign(mib(300)));
      var loud = node(aGpu().total(gib(16)).foreign(mib(600)));

      assertThat(started(plan(placer, quiet, aRequest().id("a").wholeGpus()))).containsExactly("a");
      assertThat(started(plan(placer, loud, aRequest().id("a").wholeGpus()))).isEmpty();
    }

    @Test
    @DisplayName(
        "a whole-GPU job takes the smallest empty GPU, keeping larger ones for larger jobs")
    void smallestEmptyGpu() {
      var gpus = node(aGpu().total(gib(80)), aGpu().total(gib(16)), aGpu().total(gib(40)));

      var plan = plan(placer, gpus, aRequest().id("a").wholeGpus());

      assertThat(starts(plan)).containsExactly(start("a", gib(16) - mib(512), 1));
    }

    @Test
    @DisplayName("a whole GPU takes no other job in the same pass")
    void wholeGpuBlocksOthers() {
      var plan =
          plan(
              placer,
              emptyNode(1, gib(16)),
              aRequest().id("whole").wholeGpus(),
              aRequest().id("small").bytes(mib(100)));

      assertThat(started(plan)).containsExactly("whole");
    }

    @Test
    @DisplayName("budget jobs leave the empty GPU to a whole-GPU job behind them")
    void budgetJobsKeepWholeGpusFree() {
      var gpus = node(aGpu().total(gib(16)), aGpu().total(gib(16)).reserved(gib(2)));

      var plan =
          plan(
              placer,
              gpus,
              aRequest().id("small").bytes(gib(1)),
              aRequest().id("whole").wholeGpus());

      assertThat(starts(plan))
          .containsExactly(start("small", gib(1), 1), start("whole", gib(16) - mib(512), 0));
    }
  }

  @Nested
  @DisplayName("order, backfill and reservation")
  class Order {

    private final Duration maxWait = Duration.ofMinutes(30);
    private final Placer placer = aPolicy().maxWait(maxWait).placer();
    private final List<GpuCapacity> halfFull = node(aGpu().total(gib(16)).reserved(gib(8)));

    @Test
    @DisplayName("higher priority starts first when only one fits")
    void priorityFirst() {
      var plan =
          plan(
              placer,
              halfFull,
              aRequest().id("low").bytes(gib(6)).priority(0).sequence(1),
              aRequest().id("high").bytes(gib(6)).priority(5).sequence(2));

      assertThat(started(plan)).containsExactly("high");
    }

    @Test
    @DisplayName("equal priority: the earlier submission starts first")
    void submissionOrderBreaksTies() {
      var plan =
          plan(
              placer,
              halfFull,
              aRequest().id("second").bytes(gib(6)).sequence(2),
              aRequest().id("first").bytes(gib(6)).sequence(1));

      assertThat(started(plan)).containsExactly("first");
    }

    @Test
    @DisplayName("a smaller job starts past a blocked larger one that has waited less than maxWait")
    void backfill() {
      var plan =
          plan(
              placer,
              halfFull,
              aRequest().id("big").bytes(gib(12)).waiting(maxWait.minusSeconds(1)),
              aRequest().id("small").bytes(gib(4)));

      assertThat(started(plan)).containsExactly("small");
    }

    @Test
    @DisplayName(
        "once the blocked job has waited maxWait, later GPU jobs hold back; CPU-only go on")
    void reservation() {
      var q =
          queue(
              aRequest().id("big").bytes(gib(12)).waiting(maxWait),
              aRequest().id("small").bytes(gib(4)),
              aRequest().id("cpu").cpuOnly());

      var plan = placer.plan(halfFull, 1, q, NOW);

      assertThat(started(plan)).containsExactly("cpu");
    }

    @Test
    @DisplayName("jobs ahead of the reservation holder still start")
    void reservationHoldsBackOnlyLaterJobs() {
      var plan =
          plan(
              placer,
              emptyNode(2, gib(16)),
              aRequest().id("first").bytes(gib(10)),
              aRequest().id("big").gpus(2).bytes(gib(12)).waiting(maxWait),
              aRequest().id("small").bytes(gib(2)));

      assertThat(started(plan)).containsExactly("first");
    }

    @Test
    @DisplayName("only the first blocked job may hold a reservation")
    void onlyTheHeadReserves() {
      var plan =
          plan(
              placer,
              halfFull,
              aRequest().id("big-new").bytes(gib(12)).priority(1),
              aRequest().id("big-old").bytes(gib(12)).waiting(maxWait.multipliedBy(10)),
              aRequest().id("small").bytes(gib(4)));

      assertThat(started(plan)).containsExactly("small");
    }

    @Test
    @DisplayName("a job that only foreign processes keep out holds no reservation")
    void foreignBlockedJobsDoNotReserve() {
      var gpus = node(aGpu().total(gib(16)).foreign(gib(10)));

      var plan =
          plan(
              placer,
              gpus,
              aRequest().id("big").bytes(gib(12)).waiting(maxWait.multipliedBy(10)),
              aRequest().id("small").bytes(gib(4)));

      assertThat(started(plan)).containsExactly("small");
    }

    @Test
    @DisplayName("a request that can never fit is skipped and blocks nothing")
    void infeasibleRequestsAreSkipped() {
      var plan =
          plan(
              placer,
              halfFull,
              aRequest().id("huge").bytes(gib(40)).waiting(maxWait.multipliedBy(10)),
              aRequest().id("small").bytes(gib(4)));

      assertThat(started(plan)).containsExactly("small");
    }

    @Test
    @DisplayName("maxWait zero keeps strict order: nothing passes a blocked job")
    void zeroMaxWaitIsStrictOrder() {
      var strict = aPolicy().maxWait(Duration.ZERO).placer();

      var plan = plan(strict, halfFull, aRequest().bytes(gib(12)), aRequest().bytes(gib(4)));

      assertThat(starts(plan)).isEmpty();
    }

    @Test
    @DisplayName("only the first lookahead GPU jobs are examined")
    void lookahead() {
      RequestBuilder[] q = {
        aRequest().bytes(gib(12)), aRequest().bytes(gib(12)), aRequest().id("small").bytes(gib(2))
      };

      assertThat(plan(aPolicy().lookahead(2).placer(), halfFull, q).starts()).isEmpty();
      assertThat(started(plan(aPolicy().lookahead(3).placer(), halfFull, q)))
          .containsExactly("small");
    }
  }

  @Nested
  @DisplayName("CPU-only jobs")
  class CpuOnly {

    private final Placer placer = aPolicy().placer();

    @Test
    @DisplayName("take the free slots in queue order and no GPU")
    void fillSlotsInOrder() {
      var q =
          queue(
              aRequest().id("c").cpuOnly().sequence(3),
              aRequest().id("a").cpuOnly().sequence(1),
              aRequest().id("b").cpuOnly().sequence(2));

      var plan = placer.plan(emptyNode(1, gib(16)), 2, q, NOW);

      assertThat(starts(plan)).containsExactly(start("a", 0), start("b", 0));
    }

    @Test
    @DisplayName("do not wait for GPU jobs ahead of them, nor GPU jobs for them")
    void independentOfGpuJobs() {
      var gpus = node(aGpu().total(gib(16)).reserved(gib(16)));
      var q =
          queue(
              aRequest().id("gpu-blocked").bytes(gib(4)),
              aRequest().id("cpu-blocked").cpuOnly(),
              aRequest().id("cpu").cpuOnly());

      assertThat(started(placer.plan(gpus, 1, q, NOW))).containsExactly("cpu-blocked");
      assertThat(started(placer.plan(emptyNode(1, gib(16)), 0, q, NOW)))
          .containsExactly("gpu-blocked");
    }
  }

  @Nested
  @DisplayName("cores and host memory")
  class CoresAndHostMemory {

    private final Placer placer = aPolicy().placer();

    /** A node giving its jobs {@code cpus} cores and {@code memory}, of which some are taken. */
    private HostCapacity host(int cpus, long memory, long takenCpus, long takenMemory) {
      return new HostCapacity(cpus, memory, Cpus.of(takenCpus), takenMemory);
    }

    private PlacementPlan plan(
        List<GpuCapacity> gpus, int slots, HostCapacity host, RequestBuilder... q) {
      return placer.plan(gpus, slots, host, queue(q), NOW);
    }

    @Test
    @DisplayName("a job waits for cores that are not free, however much GPU memory is")
    void waitsForCores() {
      var plan = plan(emptyNode(1, gib(16)), 0, host(4, gib(64), 2, 0), aRequest().id("a").cpus(4));

      assertThat(plan.starts()).isEmpty();
      assertThat(plan.waits().asMap()).containsEntry("a", new Wait.NoCores(Cpus.of(4), Cpus.of(2)));
    }

    @Test
    @DisplayName("fractions of a core count as what they are: eight quarter-core runs on two cores")
    void fractionsOfCoresCountExactly() {
      RequestBuilder[] tiny = new RequestBuilder[10];
      for (int i = 0; i < tiny.length; i++) {
        tiny[i] = aRequest().id("tiny-" + i).bytes(gib(1)).millicores(250);
      }

      var plan = plan(emptyNode(1, gib(80)), 0, host(2, gib(64), 0, 0), tiny);

      assertThat(plan.starts()).hasSize(8);
      assertThat(plan.freeCpus()).isEqualTo(Cpus.ZERO);
      assertThat(plan.waits().asMap())
          .containsEntry("tiny-8", new Wait.NoCores(Cpus.ofMillis(250), Cpus.ZERO));
    }

    @Test
    @DisplayName("a fraction fits what is left beside whole cores, to the thousandth")
    void fractionsFitWhatIsLeft() {
      var plan =
          plan(
              List.of(),
              4,
              new HostCapacity(2, gib(64), Cpus.ofMillis(1250), 0),
              aRequest().id("too-big").cpuOnly().millicores(751),
              aRequest().id("fits").cpuOnly().millicores(750));

      assertThat(started(plan)).containsExactly("fits");
      assertThat(plan.waits().asMap())
          .containsEntry("too-big", new Wait.NoCores(Cpus.ofMillis(751), Cpus.ofMillis(750)));
      assertThat(plan.freeCpus()).isEqualTo(Cpus.ZERO);
    }

    @Test
    @DisplayName("a job waits for host memory that is not free; one asking none reserves none")
    void waitsForHostMemory() {
      var plan =
          plan(
              List.of(),
              4,
              host(8, gib(16), 0, gib(6.5)),
              aRequest().id("big").cpuOnly().hostMemory(gib(16)),
              aRequest().id("none").cpuOnly());

      assertThat(started(plan)).containsExactly("none");
      assertThat(plan.waits().asMap())
          .containsEntry("big", new Wait.NoHostMemory(gib(16), gib(9.5)));
      assertThat(plan.freeMemoryBytes()).isEqualTo(gib(9.5));
    }

    @Test
    @DisplayName("each start counts at once against the cores and memory left for the pass")
    void startsCountAtOnce() {
      var plan =
          plan(
              emptyNode(2, gib(16)),
              4,
              host(4, gib(10), 0, 0),
              aRequest().id("a").cpus(2).hostMemory(gib(4)),
              aRequest().id("b").cpuOnly().cpus(2).hostMemory(gib(4)),
              aRequest().id("c").cpus(1),
              aRequest().id("d").cpuOnly().hostMemory(gib(1)));

      assertThat(started(plan)).containsExactly("a", "b");
      assertThat(plan.waits().asMap())
          .containsEntry("c", new Wait.NoCores(Cpus.of(1), Cpus.of(0)))
          .containsEntry("d", new Wait.NoCores(Cpus.of(1), Cpus.of(0)));
      assertThat(plan.freeCpus()).isEqualTo(Cpus.ZERO);
      assertThat(plan.freeMemoryBytes()).isEqualTo(gib(2));
    }

    @Test
    @DisplayName("a gang whose GPUs are free but cores are not gets nothing, and GPUs stay free")
    void gangGetsNothingWithoutItsCores() {
      var plan =
          plan(
              emptyNode(2, gib(16)),
              0,
              host(4, gib(64), 2, 0),
              aRequest().id("gang").gpus(2).cpus(3),
              aRequest().id("small").gpus(2).cpus(2));

      assertThat(starts(plan)).containsExactly(start("small", gib(1), 0, 1));
      assertThat(plan.waits().asMap())
          .containsEntry("gang", new Wait.NoCores(Cpus.of(3), Cpus.of(2)));
    }

    @Test
    @DisplayName("a job short of cores past the bound holds back later jobs of both kinds")
    void reservationForCores() {
      var plan =
          plan(
              emptyNode(1, gib(16)),
              4,
              host(4, gib(64), 2, 0),
              aRequest().id("wide").cpuOnly().cpus(4).waiting(Duration.ofHours(2)),
              aRequest().id("gpu").cpus(1),
              aRequest().id("narrow").cpuOnly().cpus(1));

      assertThat(plan.starts()).isEmpty();
      assertThat(plan.waits().asMap())
          .containsEntry("wide", new Wait.NoCores(Cpus.of(4), Cpus.of(2)))
          .containsEntry("gpu", new Wait.ReservedFor("wide", true))
          .containsEntry("narrow", new Wait.ReservedFor("wide", true));
    }

    @Test
    @DisplayName("before the bound smaller jobs start past a job short of cores (backfill)")
    void backfillBeforeTheBound() {
      var plan =
          plan(
              List.of(),
              4,
              host(4, gib(64), 2, 0),
              aRequest().id("wide").cpuOnly().cpus(4).waiting(Duration.ofMinutes(1)),
              aRequest().id("narrow").cpuOnly().cpus(1));

      assertThat(started(plan)).containsExactly("narrow");
    }

    @Test
    @DisplayName("a job short of GPU memory only holds back GPU jobs, not CPU-only ones")
    void gpuReservationLeavesCpuOnlyJobs() {
      var plan =
          plan(
              node(aGpu().reserved(gib(12))),
              4,
              host(4, gib(64), 0, 0),
              aRequest().id("big").bytes(gib(8)).waiting(Duration.ofHours(2)),
              aRequest().id("small").bytes(gib(1)),
              aRequest().id("cpu").cpuOnly());

      assertThat(started(plan)).containsExactly("cpu");
      assertThat(plan.waits().asMap()).containsEntry("small", new Wait.ReservedFor("big"));
    }

    @Test
    @DisplayName("more cores or host memory than the node gives is never placed, with the reason")
    void infeasible() {
      var host = HostCapacity.empty(2, gib(30));

      assertThat(placer.feasibility(aRequest().cpus(8).build(), emptyNode(1, gib(16)), host))
          .isEqualTo(new Feasibility.Infeasible("asks for 8 cores, this node gives its jobs 2"));
      assertThat(
              placer.feasibility(aRequest().cpuOnly().hostMemory(gib(64)).build(), List.of(), host))
          .isEqualTo(
              new Feasibility.Infeasible(
                  "asks for 64GiB of host memory, this node gives its jobs 30GiB"));
      var plan = plan(List.of(), 4, host, aRequest().id("a").cpuOnly().cpus(3));
      assertThat(plan.starts()).isEmpty();
      assertThat(plan.waits().asMap().get("a")).isInstanceOf(Wait.NeverHere.class);
    }
  }

  @Nested
  @DisplayName("start spacing")
  class Spacing {

    private final Duration spacing = Duration.ofSeconds(30);
    private final Placer placer = aPolicy().spacing(spacing).placer();

    @Test
    @DisplayName("delays a second start on the same GPU and reports retryAt")
    void secondStartWaits() {
      var plan =
          plan(
              placer,
              emptyNode(1, gib(16)),
              aRequest().id("a").bytes(gib(4)),
              aRequest().id("b").bytes(gib(4)));

      assertThat(started(plan)).containsExactly("a");
      assertThat(plan.retryAt()).contains(NOW.plus(spacing));
    }

    @Test
    @DisplayName("a GPU started recently takes nothing until spacing has passed since")
    void recentStartBlocks() {
      var recent = node(aGpu().startedAgo(Duration.ofSeconds(10)));
      var earlier = node(aGpu().startedAgo(spacing));

      var blocked = plan(placer, recent, aRequest().bytes(gib(4)));

      assertThat(blocked.starts()).isEmpty();
      assertThat(blocked.retryAt()).contains(NOW.plusSeconds(20));
      assertThat(plan(placer, earlier, aRequest().bytes(gib(4))).starts()).hasSize(1);
    }

    @Test
    @DisplayName("sends the job to another GPU that fits, without retryAt")
    void anotherGpu() {
      var gpus =
          node(aGpu().reserved(gib(8)).startedAgo(Duration.ofSeconds(1)), aGpu().reserved(gib(2)));

      var plan = plan(placer, gpus, aRequest().id("a").bytes(gib(4)));

      assertThat(starts(plan)).containsExactly(start("a", gib(4), 1));
      assertThat(plan.retryAt()).isEmpty();
    }

    @Test
    @DisplayName("retryAt is the earliest instant a GPU with room for a held-back job frees up")
    void earliestUsefulGpu() {
      var gpus =
          node(
              aGpu().reserved(gib(16)).startedAgo(Duration.ofSeconds(25)),
              aGpu().reserved(gib(12)).startedAgo(Duration.ofSeconds(20)),
              aGpu().startedAgo(Duration.ofSeconds(10)));

      var plan = plan(placer, gpus, aRequest().bytes(gib(4)), aRequest().bytes(gib(10)));

      assertThat(starts(plan)).isEmpty();
      assertThat(plan.retryAt()).contains(NOW.plusSeconds(10));
    }

    @Test
    @DisplayName("reports no retryAt when the job would not fit anyway")
    void noRetryWhenFull() {
      var gpus = node(aGpu().reserved(gib(14)).startedAgo(Duration.ofSeconds(1)));

      var plan = plan(placer, gpus, aRequest().bytes(gib(4)));

      assertThat(starts(plan)).isEmpty();
      assertThat(plan.retryAt()).isEqualTo(Optional.empty());
    }

    @Test
    @DisplayName("without spacing, several jobs start on one GPU in one pass")
    void noSpacing() {
      var plan =
          plan(
              aPolicy().placer(),
              emptyNode(1, gib(16)),
              aRequest().bytes(gib(4)),
              aRequest().bytes(gib(4)));

      assertThat(starts(plan)).hasSize(2);
      assertThat(plan.retryAt()).isEmpty();
    }
  }

  @Nested
  @DisplayName("feasibility")
  class Feasibilities {

    private final Placer placer = aPolicy().headroom(Headroom.ofBytes(gib(1))).placer();
    private final List<GpuCapacity> twoGpus = emptyNode(2, gib(16));

    private Feasibility of(RequestBuilder request, List<GpuCapacity> gpus) {
      return placer.feasibility(request.build(), gpus);
    }

    @Test
    @DisplayName("more GPUs than the node has")
    void tooManyGpus() {
      assertThat(of(aRequest().gpus(4), twoGpus))
          .isEqualTo(new Feasibility.Infeasible("asks for 4 GPUs, this node has 2"));
    }

    @Test
    @DisplayName("a budget larger than any GPU schedules")
    void budgetTooLarge() {
      assertThat(of(aRequest().bytes(gib(40)), twoGpus))
          .isEqualTo(
              new Feasibility.Infeasible(
                  "asks for 40GiB per GPU, the largest GPU here schedules 15GiB"
                      + " (its memory minus headroom)"));
    }

    @Test
    @DisplayName("a gang whose budget only some GPUs schedule")
    void gangTooLargeForSomeGpus() {
      var mixed = node(aGpu().total(gib(48)), aGpu().total(gib(16)));

      assertThat(of(aRequest().gpus(2).bytes(gib(20)), mixed))
          .isEqualTo(
              new Feasibility.Infeasible(
                  "asks for 20GiB on each of 2 GPUs, only 1 of this node's GPUs schedule that"
                      + " much (memory minus headroom)"));
    }

    @Test
    @DisplayName("a fraction outside (0, 1] or a budget that is not positive")
    void badDemands() {
      for (double f : new double[] {0, -0.5, 1.5, Double.NaN}) {
        assertThat(of(aRequest().fraction(f), twoGpus))
            .asInstanceOf(
                org.assertj.core.api.InstanceOfAssertFactories.type(Feasibility.Infeasible.class))
            .extracting(Feasibility.Infeasible::reason)
            .asString()
            .contains("must lie in (0, 1]");
      }
      assertThat(of(aRequest().bytes(0), twoGpus).isFeasible()).isFalse();
    }

    @Test
    @DisplayName("GPUs whose headroom leaves nothing")
    void headroomLeavesNothing() {
      var tiny = node(aGpu().total(mib(512)));

      assertThat(of(aRequest().wholeGpus(), tiny))
          .isEqualTo(
              new Feasibility.Infeasible(
                  "asks for 1 GPU, only 0 of this node's GPUs have memory left after the"
                      + " headroom"));
    }

    @Test
    @DisplayName("what fits an empty node is feasible, even if the node is busy now")
    void feasible() {
      var busy = node(aGpu().reserved(gib(16)), aGpu().reserved(gib(16)));

      assertThat(of(aRequest().gpus(2).bytes(gib(15)), busy).isFeasible()).isTrue();
      assertThat(of(aRequest().gpus(2).wholeGpus(), busy).isFeasible()).isTrue();
      assertThat(of(aRequest().fraction(1.0), busy).isFeasible()).isTrue();
      assertThat(of(aRequest().cpuOnly(), List.of()).isFeasible()).isTrue();
    }
  }

  @Test
  @DisplayName("headroom keeps the larger of its byte and fraction parts")
  void headroom() {
    var headroom = new Headroom(gib(1), 0.05);

    assertThat(headroom.bytesOf(gib(10))).isEqualTo(gib(1));
    assertThat(headroom.bytesOf(gib(80))).isEqualTo((long) Math.floor(0.05 * gib(80)));
    assertThatThrownBy(() -> Headroom.ofFraction(1.0)).isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  @DisplayName("GPU indices must be distinct")
  void distinctIndices() {
    var gpus = node(aGpu().index(3), aGpu().index(3));

    assertThatThrownBy(() -> aPolicy().placer().plan(gpus, 0, List.of(), NOW))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("3");
  }
}
