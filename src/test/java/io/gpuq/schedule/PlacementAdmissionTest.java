package io.gpuq.schedule;

import static io.gpuq.job.JobSpecs.aSpec;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

import io.gpuq.cgroup.NodeCapacity;
import io.gpuq.job.JobSpec;
import io.gpuq.job.UnsatisfiableRequestException;
import io.gpuq.node.LiveNodes;
import io.gpuq.node.NodeGpu;
import io.gpuq.placement.GpuCapacity;
import io.gpuq.placement.Headroom;
import io.gpuq.placement.PlacementPolicy;
import io.gpuq.placement.Placer;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.assertj.core.api.ThrowableAssertAlternative;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

@DisplayName("Admission at submit refuses a job that could start on no live node it selects")
class PlacementAdmissionTest {

  private static final long GIB = 1L << 30;
  private static final Clock CLOCK =
      Clock.fixed(Instant.parse("2026-12-01T00:00:00Z"), ZoneOffset.UTC);
  private static final Map<String, String> A100 = Map.of("gpu", "a100");

  private final Placer placer =
      new Placer(new PlacementPolicy(Headroom.NONE, Duration.ZERO, Duration.ZERO, 8));

  @Test
  void a_job_that_fits_this_node_is_admitted_even_while_its_gpus_are_taken() {
    var cluster = aCluster().withLocalGpus(busy(16 * GIB), busy(16 * GIB));

    assertAdmitted(cluster, aSpec().gpuMemory(12 * GIB).gpus(2).build());
  }

  @Test
  void a_job_too_big_for_this_node_is_refused_with_this_nodes_reason() {
    var cluster = aCluster().withLocalGpus(free(16 * GIB));

    assertRefused(cluster, aSpec().gpuMemory(24 * GIB).build(), "resources")
        .withMessageContaining("asks for 24GiB per GPU, the largest GPU here schedules 16GiB");
  }

  @Test
  void a_job_that_asks_for_more_gpus_than_any_node_has_is_refused() {
    var cluster =
        aCluster().withLocalGpus(free(16 * GIB)).withNode("b", Map.of(), 16 * GIB, 16 * GIB);

    assertRefused(cluster, aSpec().gpuMemory(GIB).gpus(3).build(), "resources")
        .withMessageContaining("asks for 3 GPUs, this node has 1");
  }

  @Test
  void a_job_too_big_for_this_node_is_admitted_when_another_live_node_could_run_it() {
    var cluster = aCluster().withLocalGpus(free(16 * GIB)).withNode("big", Map.of(), 80 * GIB);

    assertAdmitted(cluster, aSpec().gpuMemory(40 * GIB).build());
  }

  @Test
  void a_job_is_admitted_when_the_node_its_selector_picks_could_run_it() {
    var cluster = aCluster().withLocalGpus(free(80 * GIB)).withNode("b", A100, 40 * GIB);

    assertAdmitted(cluster, aSpec().gpuMemory(24 * GIB).nodeSelector(A100).build());
  }

  @Test
  void a_node_its_selector_does_not_pick_does_not_count() {
    var cluster =
        aCluster()
            .withLocalGpus(free(80 * GIB))
            .withNode("small", A100, 16 * GIB)
            .withNode("big", Map.of("gpu", "h100"), 80 * GIB);

    assertRefused(cluster, aSpec().gpuMemory(40 * GIB).nodeSelector(A100).build(), "resources")
        .withMessage("no live node with the labels {gpu=a100} has GPUs for it");
  }

  @Test
  void a_job_whose_selector_no_live_node_carries_is_refused_for_its_selector() {
    var cluster = aCluster().labelled(Map.of("gpu", "h100")).withNode("b", Map.of(), 80 * GIB);

    assertRefused(cluster, aSpec().nodeSelector(A100).build(), "nodeSelector")
        .withMessage("no live node carries the labels {gpu=a100}");
  }

  @Test
  void a_cpu_only_job_is_admitted_on_a_node_without_gpus() {
    var cluster = aCluster();

    assertAdmitted(cluster, aSpec().build());
  }

  @Test
  void a_cpu_only_job_is_admitted_when_only_another_node_carries_its_labels() {
    var cluster = aCluster().withNode("b", A100);

    assertAdmitted(cluster, aSpec().nodeSelector(A100).build());
  }

  @Test
  void a_job_asking_more_cores_than_this_node_gives_is_refused_with_the_numbers() {
    var cluster = aCluster().giving(2, 30 * GIB).withLocalGpus(free(16 * GIB));

    assertRefused(cluster, aSpec().gpuMemory(GIB).host(8, null).build(), "resources")
        .withMessage("asks for 8 cores, this node gives its jobs 2");
  }

  @Test
  void a_cpu_only_job_asking_more_host_memory_than_any_live_node_gives_is_refused() {
    var cluster = aCluster().giving(4, 30 * GIB).withNode("b", Map.of()).givingOn("b", 8, 60 * GIB);

    assertRefused(cluster, aSpec().host(1, 100 * GIB).build(), "resources")
        .withMessage("asks for 100GiB of host memory, this node gives its jobs 30GiB");
  }

  @Test
  void a_job_whose_selector_picks_only_small_nodes_is_refused_with_the_most_they_give() {
    var cluster =
        aCluster()
            .giving(64, 512 * GIB)
            .withNode("b", A100)
            .givingOn("b", 4, 60 * GIB)
            .withNode("c", A100)
            .givingOn("c", 6, 60 * GIB);

    assertRefused(cluster, aSpec().nodeSelector(A100).host(16, null).build(), "resources")
        .withMessage(
            "asks for 16 cores, no live node with the labels {gpu=a100} gives its jobs"
                + " more than 6");
  }

  @Test
  void a_job_too_wide_for_this_node_is_admitted_when_another_live_node_gives_the_cores() {
    var cluster =
        aCluster()
            .giving(2, 30 * GIB)
            .withLocalGpus(free(16 * GIB))
            .withNode("big", Map.of(), 16 * GIB)
            .givingOn("big", 32, 256 * GIB);

    assertAdmitted(cluster, aSpec().gpuMemory(GIB).host(16, 64 * GIB).build());
  }

  @Test
  void a_job_is_admitted_while_this_nodes_cores_are_all_taken() {
    var cluster = aCluster().giving(4, 30 * GIB);

    assertAdmitted(cluster, aSpec().host(4, 30 * GIB).build());
  }

  @Test
  void a_node_that_reports_no_cores_or_memory_is_not_held_to_them() {
    var cluster = aCluster().giving(2, 30 * GIB).withNode("old", Map.of());

    assertAdmitted(cluster, aSpec().host(16, 100 * GIB).build());
  }

  // --- the cluster as this node sees it ---------------------------------------------------------

  private static Cluster aCluster() {
    return new Cluster();
  }

  /** A GPU of this node with nothing on it. */
  private static GpuCapacity free(long totalBytes) {
    return new GpuCapacity(0, "GPU-local", totalBytes, 0, 0, 0, null);
  }

  /** A GPU of this node that is all reserved and in use, just now started on. */
  private static GpuCapacity busy(long totalBytes) {
    return new GpuCapacity(0, "GPU-local", totalBytes, totalBytes, totalBytes, 0, CLOCK.instant());
  }

  /**
   * This node ("here", its labels and GPUs) and the other live nodes with their labels and GPUs,
   * stated as the node registry would read them from their heartbeats.
   */
  private static final class Cluster implements LiveNodes {
    private Map<String, String> labels = Map.of();
    private final List<GpuCapacity> localGpus = new ArrayList<>();
    private final Map<String, Map<String, String>> others = new HashMap<>();
    private final List<NodeGpu> otherGpus = new ArrayList<>();
    private NodeCapacity allocatable = new NodeCapacity(64, 512 * GIB);
    private final Map<String, NodeCapacity> othersAllocatable = new HashMap<>();

    /** The cores and host memory this node gives its jobs. */
    Cluster giving(int cpus, long memoryBytes) {
      this.allocatable = new NodeCapacity(cpus, memoryBytes);
      return this;
    }

    /** The cores and host memory another node's heartbeat says it gives its jobs. */
    Cluster givingOn(String node, int cpus, long memoryBytes) {
      othersAllocatable.put(node, new NodeCapacity(cpus, memoryBytes));
      return this;
    }

    Cluster labelled(Map<String, String> labels) {
      this.labels = Map.copyOf(labels);
      return this;
    }

    Cluster withLocalGpus(GpuCapacity... gpus) {
      for (GpuCapacity gpu : gpus) {
        localGpus.add(
            new GpuCapacity(
                localGpus.size(),
                "GPU-here-" + localGpus.size(),
                gpu.totalBytes(),
                gpu.reservedBytes(),
                gpu.measuredUsedBytes(),
                gpu.foreignUsedBytes(),
                gpu.lastStartAt()));
      }
      return this;
    }

    Cluster withNode(String name, Map<String, String> labels, long... gpuMemoryBytes) {
      others.put(name, Map.copyOf(labels));
      for (int index = 0; index < gpuMemoryBytes.length; index++) {
        otherGpus.add(
            new NodeGpu(
                name,
                index,
                "GPU-" + name + "-" + index,
                "Emulated GPU",
                "emulated",
                gpuMemoryBytes[index],
                0,
                0,
                0,
                List.of()));
      }
      return this;
    }

    @Override
    public String self() {
      return "here";
    }

    @Override
    public boolean selects(Map<String, String> selector) {
      return labels.entrySet().containsAll(selector.entrySet());
    }

    @Override
    public Map<String, Map<String, String>> otherLiveNodes() {
      return Map.copyOf(others);
    }

    @Override
    public List<NodeGpu> otherLiveNodesGpus() {
      return List.copyOf(otherGpus);
    }

    @Override
    public Optional<NodeCapacity> allocatable() {
      return Optional.of(allocatable);
    }

    @Override
    public Map<String, NodeCapacity> otherLiveNodesAllocatable() {
      return Map.copyOf(othersAllocatable);
    }
  }

  // --- assertions
  // ---------------------------------------------------------------------------------

  private PlacementAdmission admissionIn(Cluster cluster) {
    return new PlacementAdmission(placer, () -> List.copyOf(cluster.localGpus), CLOCK, cluster);
  }

  private void assertAdmitted(Cluster cluster, JobSpec spec) {
    assertThatCode(() -> admissionIn(cluster).check(spec)).doesNotThrowAnyException();
  }

  /** The refusal blames {@code field} of the request, with a message that says why. */
  private ThrowableAssertAlternative<UnsatisfiableRequestException> assertRefused(
      Cluster cluster, JobSpec spec, String field) {
    return assertThatExceptionOfType(UnsatisfiableRequestException.class)
        .isThrownBy(() -> admissionIn(cluster).check(spec))
        .satisfies(refusal -> assertThat(refusal.field()).isEqualTo(field));
  }
}
