package io.gpuq.node;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
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

  /**
   * @param timeout a node silent this long is dead
   */
  public NodeRegistry(
      NodeStore nodes, Clock clock, NodeIdentity self, Duration timeout, LocalGpus localGpus) {
    this.nodes = nodes;
    this.clock = clock;
    this.self = self.name();
    this.labels = self.labels();
    this.timeout = timeout;
    this.localGpus = localGpus;
  }

  @Override
  public String self() {
    return self;
  }

  public Map<String, String> labels() {
    return labels;
  }

  /** Tells the other nodes this one is alive, with its GPUs as they are now. */
  public void beat() {
    String gpus = JSON.writeValueAsString(localGpus.gpus());
    String labelsJson = JSON.writeValueAsString(labels);
    Instant now = clock.instant();
    nodes.beat(self, labelsJson, localGpus.backendKind(), gpus, now);
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
  public Map<String, Map<String, String>> otherLiveNodes() {
    Instant now = clock.instant();
    Map<String, Map<String, String>> live = new java.util.HashMap<>();
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

  private record Cached(Instant readAt, List<Node> nodes) {}

  private volatile Cached cache;

  @Override
  public boolean selects(Map<String, String> selector) {
    return labels.entrySet().containsAll(selector.entrySet());
  }
}
