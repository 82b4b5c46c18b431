package io.gpuq.schedule;

import io.gpuq.cgroup.NodeCapacity;
import io.gpuq.fairshare.Limits;
import io.gpuq.job.JobSpec;
import io.gpuq.job.SubmitAdmission;
import io.gpuq.job.UnsatisfiableRequestException;
import io.gpuq.node.LiveNodes;
import io.gpuq.node.NodeGpu;
import io.gpuq.placement.Feasibility;
import io.gpuq.placement.GpuCapacity;
import io.gpuq.placement.HostCapacity;
import io.gpuq.placement.MemoryDemand;
import io.gpuq.placement.PlacementRequest;
import io.gpuq.placement.Placer;
import io.gpuq.text.Cpus;
import io.gpuq.text.MemorySize;
import java.time.Clock;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * Refuses at submit what could not start anywhere: under its owner's running limits, with nothing
 * else of theirs running, or on no live node its selector picks, not even if that node were empty.
 * A node's GPUs count, and so do the cores and host memory it gives its jobs (as the nodes table
 * has them; a node that reports none is not held to them).
 */
public final class PlacementAdmission implements SubmitAdmission {

  private final Placer placer;
  private final Supplier<List<GpuCapacity>> localGpus;
  private final Clock clock;
  private final LiveNodes nodes;
  private final Function<String, Limits> limitsOf;

  /** With no owner's running limits. */
  public PlacementAdmission(
      Placer placer, Supplier<List<GpuCapacity>> localGpus, Clock clock, LiveNodes nodes) {
    this(placer, localGpus, clock, nodes, owner -> Limits.DEFAULT);
  }

  /**
   * @param localGpus this node's GPUs (only their total memory counts: the node is taken as empty)
   * @param limitsOf each owner's running limits
   */
  public PlacementAdmission(
      Placer placer,
      Supplier<List<GpuCapacity>> localGpus,
      Clock clock,
      LiveNodes nodes,
      Function<String, Limits> limitsOf) {
    this.placer = placer;
    this.localGpus = localGpus;
    this.clock = clock;
    this.nodes = nodes;
    this.limitsOf = limitsOf;
  }

  /**
   * Accepts a job that its owner's running limits let start with nothing else of theirs running,
   * and that some live node selected by it could run if that node were empty.
   */
  @Override
  public void check(String owner, JobSpec spec) {
    Optional<Limits.Reached> never = limitsOf.apply(owner).neverAllows(spec.gpus(), spec.memory());
    if (never.isPresent()) {
      throw new UnsatisfiableRequestException(
          limitField(spec, never.get()), limitReason(spec, never.get()));
    }
    check(spec);
  }

  /** The field a limit blames: what the job asks that passes it. */
  private static String limitField(JobSpec spec, Limits.Reached limit) {
    return switch (limit.key()) {
      case "max-gpus" ->
          spec.memory() instanceof MemoryDemand.Fraction
              ? "resources.gpuFraction"
              : "resources.gpus";
      case "max-gpu-memory" ->
          spec.memory() instanceof MemoryDemand.Bytes ? "resources.gpuMemory" : "resources.gpus";
      default -> "resources";
    };
  }

  /**
   * {@code asks for 2 GPUs, more than your limit of 1 GPU (max-gpus) lets you hold at once: it
   * could never start}.
   */
  private static String limitReason(JobSpec spec, Limits.Reached limit) {
    String limited = limit.reason().substring("at ".length());
    String asks;
    switch (limit.key()) {
      case "max-gpus" ->
          asks =
              spec.memory() instanceof MemoryDemand.Fraction f
                  ? number(spec.gpus() * f.fraction()) + " of a GPU"
                  : spec.gpus() + (spec.gpus() == 1 ? " GPU" : " GPUs");
      case "max-gpu-memory" ->
          asks =
              spec.memory() instanceof MemoryDemand.Bytes b
                  ? MemorySize.format(b.bytes() * spec.gpus()) + " of GPU memory"
                  : "GPU memory";
      default -> {
        return limited + " lets no job of yours start: it could never start";
      }
    }
    return "asks for "
        + asks
        + ", more than "
        + limited
        + " lets you hold at once: it could never start";
  }

  private static String number(double value) {
    return value == Math.rint(value) ? Long.toString((long) value) : Double.toString(value);
  }

  /**
   * Accepts a job that some live node selected by it could run if that node were empty. The other
   * nodes are as last read, up to a second ago: before a refusal they are read again, so that a
   * node that has just started (or just said what it gives its jobs) is not refused.
   */
  public void check(JobSpec spec) {
    try {
      checkAgainst(spec);
    } catch (UnsatisfiableRequestException refused) {
      if (!nodes.readAgain()) {
        throw refused;
      }
      checkAgainst(spec);
    }
  }

  private void checkAgainst(JobSpec spec) {
    Set<String> selected = selectedNodes(spec);
    if (selected.isEmpty()) {
      throw new UnsatisfiableRequestException(
          "nodeSelector", "no live node carries the labels " + spec.nodeSelector());
    }
    boolean here = selected.contains(nodes.self());
    PlacementRequest request = JobDemands.requestOf(spec, clock.instant());
    List<NodeCapacity> hosts = new ArrayList<>();
    Feasibility local = null;
    if (here) {
      NodeCapacity host = nodes.allocatable().orElse(LocalNode.UNLIMITED);
      hosts.add(host);
      local =
          placer.feasibility(
              request,
              spec.gpus() == 0 ? List.of() : localGpus.get(),
              HostCapacity.empty(host.cpus(), host.memoryBytes()));
      if (local instanceof Feasibility.Feasible) {
        return;
      }
    }
    Map<String, List<GpuCapacity>> byNode = new HashMap<>();
    if (spec.gpus() > 0) {
      for (NodeGpu gpu : nodes.otherLiveNodesGpus()) {
        if (!selected.contains(gpu.node())) {
          continue;
        }
        byNode
            .computeIfAbsent(gpu.node(), n -> new ArrayList<>())
            .add(new GpuCapacity(gpu.index(), gpu.uuid(), gpu.memoryTotalBytes(), 0, 0, 0, null));
      }
    }
    Map<String, NodeCapacity> allocatable = nodes.otherLiveNodesAllocatable();
    boolean someHasGpus = here && spec.gpus() > 0 && fitsGpusAlone(request, localGpus.get());
    for (String name : selected) {
      if (name.equals(nodes.self())) {
        continue;
      }
      List<GpuCapacity> gpus = byNode.getOrDefault(name, List.of());
      NodeCapacity host = allocatable.getOrDefault(name, LocalNode.UNLIMITED);
      hosts.add(host);
      if (placer.feasibility(request, gpus, HostCapacity.empty(host.cpus(), host.memoryBytes()))
          instanceof Feasibility.Feasible) {
        return;
      }
      someHasGpus |= spec.gpus() > 0 && fitsGpusAlone(request, gpus);
    }
    String reason;
    if (local instanceof Feasibility.Infeasible infeasible) {
      reason = infeasible.reason();
    } else if (spec.gpus() > 0 && !someHasGpus) {
      reason = "no live node with the labels " + spec.nodeSelector() + " has GPUs for it";
    } else {
      reason = hostReason(request, spec, hosts);
    }
    throw new UnsatisfiableRequestException("resources", reason);
  }

  private boolean fitsGpusAlone(PlacementRequest request, List<GpuCapacity> gpus) {
    return placer.feasibility(request, gpus).isFeasible();
  }

  /** Why no selected node gives the job its cores and host memory: the most any of them gives. */
  private static String hostReason(
      PlacementRequest request, JobSpec spec, List<NodeCapacity> hosts) {
    int mostCpus = hosts.stream().mapToInt(NodeCapacity::cpus).max().orElse(0);
    long mostMemory = hosts.stream().mapToLong(NodeCapacity::memoryBytes).max().orElse(0);
    String where =
        spec.nodeSelector().isEmpty()
            ? "no live node"
            : "no live node with the labels " + spec.nodeSelector();
    if (request.cpus().compareTo(Cpus.of(mostCpus)) > 0) {
      return "asks for "
          + request.cpus().text()
          + ", "
          + where
          + " gives its jobs more than "
          + mostCpus;
    }
    if (request.hostMemoryBytes() > mostMemory) {
      return "asks for "
          + MemorySize.format(request.hostMemoryBytes())
          + " of host memory, "
          + where
          + " gives its jobs more than "
          + MemorySize.format(mostMemory);
    }
    return where + " has its GPUs, cores and host memory together";
  }

  private Set<String> selectedNodes(JobSpec spec) {
    Set<String> names = new HashSet<>();
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
