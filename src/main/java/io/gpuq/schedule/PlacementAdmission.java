package io.gpuq.schedule;

import io.gpuq.job.JobSpec;
import io.gpuq.job.SubmitAdmission;
import io.gpuq.job.UnsatisfiableRequestException;
import io.gpuq.node.LiveNodes;
import io.gpuq.node.NodeGpu;
import io.gpuq.placement.Feasibility;
import io.gpuq.placement.GpuCapacity;
import io.gpuq.placement.PlacementRequest;
import io.gpuq.placement.Placer;
import java.time.Clock;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

/**
 * Refuses at submit what could not start anywhere: on no live node its selector picks, not even if
 * that node were empty.
 */
public final class PlacementAdmission implements SubmitAdmission {

  private final Placer placer;
  private final Supplier<List<GpuCapacity>> localGpus;
  private final Clock clock;
  private final LiveNodes nodes;

  /**
   * @param localGpus this node's GPUs (only their total memory counts: the node is taken as empty)
   */
  public PlacementAdmission(
      Placer placer, Supplier<List<GpuCapacity>> localGpus, Clock clock, LiveNodes nodes) {
    this.placer = placer;
    this.localGpus = localGpus;
    this.clock = clock;
    this.nodes = nodes;
  }

  /** Accepts a job that some live node selected by it could run if that node were empty. */
  @Override
  public void check(JobSpec spec) {
    java.util.Set<String> selected = selectedNodes(spec);
    if (selected.isEmpty()) {
      throw new UnsatisfiableRequestException(
          "nodeSelector", "no live node carries the labels " + spec.nodeSelector());
    }
    boolean here = selected.contains(nodes.self());
    if (spec.gpus() == 0) {
      return;
    }
    PlacementRequest request = JobDemands.requestOf(spec, clock.instant());
    Feasibility local = here ? placer.feasibility(request, localGpus.get()) : null;
    if (local instanceof Feasibility.Feasible) {
      return;
    }
    Map<String, List<GpuCapacity>> byNode = new HashMap<>();
    for (NodeGpu gpu : nodes.otherLiveNodesGpus()) {
      if (!selected.contains(gpu.node())) {
        continue;
      }
      byNode
          .computeIfAbsent(gpu.node(), n -> new ArrayList<>())
          .add(new GpuCapacity(gpu.index(), gpu.uuid(), gpu.memoryTotalBytes(), 0, 0, 0, null));
    }
    for (List<GpuCapacity> gpus : byNode.values()) {
      if (placer.feasibility(request, gpus) instanceof Feasibility.Feasible) {
        return;
      }
    }
    String reason =
        local instanceof Feasibility.Infeasible infeasible
            ? infeasible.reason()
            : "no live node with the labels " + spec.nodeSelector() + " has GPUs for it";
    throw new UnsatisfiableRequestException("resources", reason);
  }

  private java.util.Set<String> selectedNodes(JobSpec spec) {
    java.util.Set<String> names = new java.util.HashSet<>();
    if (nodes.selects(spec.nodeSelector())) {
      names.add(nodes.self());
    }
    nodes
        .otherLiveNodes()
        .forEach(
            (name, labels) -> {
              if (labels.entrySet().containsAll(spec.nodeSelector().entrySet())) {
                names.add(name);
              }
            });
    return names;
  }
}
