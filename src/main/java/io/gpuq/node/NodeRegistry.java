package io.gpuq.node;

import io.gpuq.cgroup.NodeCapacity;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Supplier;
import tools.jackson.core.type.TypeReference;
import tools.jackson.databind.json.JsonMapper;

/**
 * The gpuq nodes sharing this database: this node registers itself and its GPUs, and reads the
 * others' last heartbeats.
 */
public class NodeRegistry implements LiveNodes {

  private static final JsonMapper JSON = JsonMapper.builder().build();

  private final NodeStore nodes;
  private final Clock clock;
  private final String self;
  private final Map<String, String> labels;
  private final Duration timeout;
  private final LocalGpus localGpus;
  private final NodeCapacity allocatable;
  private final Supplier<HostUsage> used;

  /**
   * @param timeout a node silent this long is dead
   * @param allocatable the cores and memory this node gives its jobs ({@link LocalCapacity})
   * @param used what this node's workers use now, as last measured
   */
  public NodeRegistry(
      NodeStore nodes,
      Clock clock,
      NodeIdentity self,
      Duration timeout,
      LocalGpus localGpus,
      NodeCapacity allocatable,
      Supplier<HostUsage> used) {
    this.nodes = nodes;
    this.clock = clock;
    this.self = self.name();
    this.labels = self.labels();
    this.timeout = timeout;
    this.localGpus = localGpus;
    this.allocatable = allocatable;
    this.used = used;
  }

  @Override
  public String self() {
    return self;
  }

  public Map<String, String> labels() {
    return labels;
  }

  /**
   * Tells the other nodes this one is alive, with its GPUs as they are now, the cores and memory it
   * gives its jobs and what its workers use.
   */
  public void beat() {
    String gpus = JSON.writeValueAsString(localGpus.gpus());
    String labelsJson = JSON.writeValueAsString(labels);
    Instant now = clock.instant();
    nodes.beat(
        new Heartbeat(
            self, labelsJson, localGpus.backendKind(), gpus, allocatable, used.get(), now));
  }

  /**
   * The cores and memory of every live node, this one first, then the others by name: this node's
   * allocatable and used figures as they are now, the others' as of their last heartbeat; every
   * node's allocated figures from the database (one query), read fresh.
   */
  public List<NodeFigures> liveNodeFigures() {
    Instant now = clock.instant();
    Map<String, Allocated> allocated = nodes.allocatedByNode();
    List<NodeFigures> figures = new ArrayList<>();
    figures.add(selfFigures(allocated.getOrDefault(self, Allocated.NOTHING), heartbeatOfSelf(now)));
    allNodes(now).stream()
        .filter(node -> !node.name().equals(self) && node.isAlive(now, timeout))
        .sorted(Comparator.comparing(Node::name))
        .forEach(
            node -> {
              Allocated given = allocated.getOrDefault(node.name(), Allocated.NOTHING);
              figures.add(
                  new NodeFigures(
                      node.name(),
                      JSON.readValue(node.labels(), new TypeReference<Map<String, String>>() {}),
                      node.heartbeatAt(),
                      new NodeFigures.Cores(node.allocatableCpus(), given.cpus(), node.usedCpus()),
                      new NodeFigures.Memory(
                          node.allocatableMemoryBytes(),
                          given.memoryBytes(),
                          node.usedMemoryBytes())));
            });
    return figures;
  }

  /**
   * This node's own figures now (for its gauges): allocated read from the database (one query);
   * {@code heartbeatAt} is now.
   */
  public NodeFigures selfFigures() {
    return selfFigures(
        nodes.allocatedByNode().getOrDefault(self, Allocated.NOTHING), clock.instant());
  }

  private NodeFigures selfFigures(Allocated allocated, Instant heartbeatAt) {
    HostUsage now = used.get();
    return new NodeFigures(
        self,
        labels,
        heartbeatAt,
        new NodeFigures.Cores(allocatable.cpus(), allocated.cpus(), now.cpus()),
        new NodeFigures.Memory(
            allocatable.memoryBytes(), allocated.memoryBytes(), now.memoryBytes()));
  }

  private Instant heartbeatOfSelf(Instant now) {
    return allNodes(now).stream()
        .filter(node -> node.name().equals(self))
        .map(Node::heartbeatAt)
        .findFirst()
        .orElse(now);
  }

  /** Nodes other than this one whose last heartbeat is older than the timeout. */
  public List<String> silentNodes() {
    Instant before = clock.instant().minus(timeout);
    return nodes.silentSince(before).stream()
        .map(Node::name)
        .filter(name -> !name.equals(self))
        .toList();
  }

  @Override
  public List<NodeGpu> otherLiveNodesGpus() {
    Instant now = clock.instant();
    List<NodeGpu> gpus = new ArrayList<>();
    for (Node node : allNodes(now)) {
      if (!node.name().equals(self) && node.isAlive(now, timeout)) {
        gpus.addAll(JSON.readValue(node.gpus(), new TypeReference<List<NodeGpu>>() {}));
      }
    }
    return gpus;
  }

  @Override
  public Optional<NodeCapacity> allocatable() {
    return Optional.of(allocatable);
  }

  @Override
  public Map<String, NodeCapacity> otherLiveNodesAllocatable() {
    Instant now = clock.instant();
    Map<String, NodeCapacity> live = new HashMap<>();
    for (Node node : allNodes(now)) {
      if (!node.name().equals(self)
          && node.isAlive(now, timeout)
          && node.allocatableCpus() != null
          && node.allocatableCpus() >= 1
          && node.allocatableMemoryBytes() != null
          && node.allocatableMemoryBytes() >= 0) {
        live.put(
            node.name(), new NodeCapacity(node.allocatableCpus(), node.allocatableMemoryBytes()));
      }
    }
    return live;
  }

  @Override
  public Map<String, Map<String, String>> otherLiveNodes() {
    Instant now = clock.instant();
    Map<String, Map<String, String>> live = new HashMap<>();
    for (Node node : allNodes(now)) {
      if (!node.name().equals(self) && node.isAlive(now, timeout)) {
        live.put(
            node.name(),
            JSON.readValue(node.labels(), new TypeReference<Map<String, String>>() {}));
      }
    }
    return live;
  }

  /**
   * All registered nodes, read at most once a second: submissions ask on every request, and a
   * heartbeat is seconds apart anyway.
   */
  private List<Node> allNodes(Instant now) {
    Cached cached = cache;
    if (cached == null || cached.readAt().plusSeconds(1).isBefore(now)) {
      cached = new Cached(now, List.copyOf(nodes.all()));
      cache = cached;
    }
    return cached.nodes();
  }

  @Override
  public boolean readAgain() {
    boolean read = cache != null;
    cache = null;
    return read;
  }

  private record Cached(Instant readAt, List<Node> nodes) {}

  private volatile Cached cache;

  @Override
  public boolean selects(Map<String, String> selector) {
    return labels.entrySet().containsAll(selector.entrySet());
  }
}
