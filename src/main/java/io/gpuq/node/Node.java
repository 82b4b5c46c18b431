package io.gpuq.node;

import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.Table;
import jakarta.persistence.Version;
import java.time.Duration;
import java.time.Instant;

/** A gpuq instance on one GPU node, as the others see it through the shared database. */
@Entity
@Table(name = "nodes")
public class Node {

  @Id private String name;

  /** JSON object of the node's labels. */
  @Column(nullable = false)
  private String labels;

  @Column(nullable = false)
  private String backend;

  /** JSON array of the node's GPUs as {@code GET /api/v1/gpus} shows them, at the last beat. */
  @Column(nullable = false)
  private String gpus;

  @Column(nullable = false)
  private Instant startedAt;

  @Column(nullable = false)
  private Instant heartbeatAt;

  // Nullable, so that a new entity with its own id is persisted, not merged (no select first).
  @Version private Long version;

  protected Node() {}

  public Node(String name, String labels, String backend, String gpus, Instant now) {
    this.name = name;
    this.labels = labels;
    this.backend = backend;
    this.gpus = gpus;
    this.startedAt = now;
    this.heartbeatAt = now;
  }

  void beat(String labels, String backend, String gpus, Instant now) {
    this.labels = labels;
    this.backend = backend;
    this.gpus = gpus;
    this.heartbeatAt = now;
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
}
