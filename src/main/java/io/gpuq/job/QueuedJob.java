package io.gpuq.job;

import io.gpuq.placement.MemoryDemand;
import java.time.Instant;
import java.util.Map;

/**
 * What scheduling needs of a queued job, read without its collections: a pass reads up to the
 * lookahead of these to start a few.
 */
public record QueuedJob(
    String id,
    int gpus,
    MemoryDemand memory,
    int priority,
    Instant queuedAt,
    Map<String, String> nodeSelector) {

  public QueuedJob {
    nodeSelector = nodeSelector == null ? Map.of() : nodeSelector;
  }

  /** From the columns, as the repository's queue queries select them. */
  public QueuedJob(
      String id,
      int gpus,
      Long gpuMemoryBytes,
      Double gpuFraction,
      int priority,
      Instant queuedAt,
      Map<String, String> nodeSelector) {
    this(id, gpus, MemoryDemand.of(gpuMemoryBytes, gpuFraction), priority, queuedAt, nodeSelector);
  }
}
