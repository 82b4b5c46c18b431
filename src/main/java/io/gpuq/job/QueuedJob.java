package io.gpuq.job;

import io.gpuq.placement.MemoryDemand;
import io.gpuq.text.Cpus;
import java.time.Instant;
import java.util.Map;
import java.util.Objects;

/**
 * What scheduling needs of a queued job, read without its collections: a pass reads up to the
 * lookahead of these to start a few.
 *
 * @param owner whose job it is: fair share orders owners, priority only an owner's own jobs
 * @param sweepId the sweep it is a trial of, whose {@code maxConcurrent} may hold it back; null for
 *     a job of its own
 * @param host the cores and host memory its next attempt takes of its node
 * @param preemptible whether it may be preempted (issue 35): with {@code
 *     gpuq.preemption.over-share-requires-preemptible}, only such a job starts above its owner's
 *     share
 */
public record QueuedJob(
    String id,
    String owner,
    int gpus,
    MemoryDemand memory,
    int priority,
    Instant queuedAt,
    Map<String, String> nodeSelector,
    String sweepId,
    HostResources host,
    boolean preemptible) {

  public QueuedJob {
    nodeSelector = nodeSelector == null ? Map.of() : nodeSelector;
    Objects.requireNonNull(host, "host");
  }

  /** From the columns, as the repository's queue queries select them. */
  public QueuedJob(
      String id,
      String owner,
      int gpus,
      Long gpuMemoryBytes,
      Double gpuFraction,
      int priority,
      Instant queuedAt,
      Map<String, String> nodeSelector,
      String sweepId,
      Cpus cpus,
      Long memoryBytes,
      boolean preemptible) {
    this(
        id,
        owner,
        gpus,
        MemoryDemand.of(gpuMemoryBytes, gpuFraction),
        priority,
        queuedAt,
        nodeSelector,
        sweepId,
        new HostResources(cpus, memoryBytes),
        preemptible);
  }
}
