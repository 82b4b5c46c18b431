package io.gpuq.node;

import io.gpuq.cgroup.NodeCapacity;
import java.time.Duration;
import java.time.Instant;

/** A gpuq instance on one GPU node, as the others see it through the shared database. */
public class Node {

  private String name;

  /** JSON object of the node's labels. */
  private String labels;

  private String backend;

  /** JSON array of the node's GPUs as {@code GET /api/v1/gpus} shows them, at the last beat. */
  private String gpus;

  private Instant startedAt;

  /** Cores and host memory it gives its jobs; null in a row a node older than these wrote. */
  private Integer allocatableCpus;

  private Long allocatableMemoryBytes;

  /** What its workers used at its last reading: CPU cores and resident bytes; null if none. */
  private Double usedCpus;

  private Long usedMemoryBytes;

  private Instant heartbeatAt;

  // Nullable, so that a new entity with its own id is persisted, not merged (no select first).
  private Long version;

  protected Node() {}

  public Node(String name, String labels, String backend, String gpus, Instant now) {
    this.name = name;
    this.labels = labels;
    this.backend = backend;
    this.gpus = gpus;
    this.startedAt = now;
    this.heartbeatAt = now;
  }

  public void beat(String labels, String backend, String gpus, Instant now) {
    this.labels = labels;
    this.backend = backend;
    this.gpus = gpus;
    this.heartbeatAt = now;
  }

  /** Its cores and memory as of this beat: what it gives jobs, and what they used (or null). */
  public void report(NodeCapacity allocatable, HostUsage used) {
    this.allocatableCpus = allocatable.cpus();
    this.allocatableMemoryBytes = allocatable.memoryBytes();
    this.usedCpus = used == null ? null : used.cpus();
    this.usedMemoryBytes = used == null ? null : used.memoryBytes();
  }

  public boolean isAlive(Instant now, Duration timeout) {
    return !heartbeatAt.plus(timeout).isBefore(now);
  }

  public String name() {
    return name;
  }

  public String labels() {
    return labels;
  }

  public String backend() {
    return backend;
  }

  public String gpus() {
    return gpus;
  }

  public Instant startedAt() {
    return startedAt;
  }

  public Instant heartbeatAt() {
    return heartbeatAt;
  }

  public Integer allocatableCpus() {
    return allocatableCpus;
  }

  public Long allocatableMemoryBytes() {
    return allocatableMemoryBytes;
  }

  public Double usedCpus() {
    return usedCpus;
  }

  public Long usedMemoryBytes() {
    return usedMemoryBytes;
  }
}
