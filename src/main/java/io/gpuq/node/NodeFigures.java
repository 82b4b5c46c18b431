package io.gpuq.node;

import io.gpuq.text.Cpus;
import java.time.Instant;
import java.util.Map;

/**
 * A live node's cores and host memory, as {@code GET /api/v1/nodes} and the gauges show them. In
 * each, {@code allocatable} is what the node gives its jobs (null when it did not report it: a node
 * older than these figures); {@code allocated} what its RUNNING jobs were given, from the database;
 * {@code used} what its workers used: this node's own last reading, another node's as of its last
 * heartbeat, null when it reported none.
 */
public record NodeFigures(
    String name, Map<String, String> labels, Instant heartbeatAt, Cores cpus, Memory memory) {

  public NodeFigures {
    labels = Map.copyOf(labels);
  }

  /**
   * Whole cores allocatable; cores allocated (fractions added up); cores used (CPU-seconds per
   * second).
   */
  public record Cores(Integer allocatable, Cpus allocated, Double used) {}

  /** Bytes of host memory: used is resident memory. */
  public record Memory(Long allocatable, long allocated, Long used) {}
}
