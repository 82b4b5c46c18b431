package io.gpuq.job;

import java.time.Instant;
import java.util.Map;

/**
 * What scheduling needs of a queued job, read without its collections: a pass reads up to the
 * lookahead of these to start a few.
 */
public record QueuedJob(
    String id,
    int gpus,
    Long gpuMemoryBytes,
    Double gpuFraction,
    int priority,
    Instant queuedAt,
    Map<String, String> nodeSelector) {

  public QueuedJob {
    nodeSelector = nodeSelector == null ? Map.of() : nodeSelector;
  }
}
