package io.gpuq.sweep;

import io.gpuq.job.JobState;
import java.time.Instant;
import java.util.Map;
import java.util.Optional;

/**
 * A stored sweep: what its row holds.
 *
 * @param method the method's wire name: grid, random or external
 * @param definitionJson the request as validated (template and sweep fields), to rebuild its {@link
 *     SweepDefinition} and to tell a retried request from another
 * @param metric the metric that ranks its trials, or null
 * @param earlyStoppingJson the early-stopping rule as the request gave it, or null
 * @param maxConcurrent null for no limit
 * @param seed a random sweep's seed (the request's, or drawn), else null
 * @param trialCount trials created so far: an external sweep's next trial gets this number
 * @param closed no more trials will be added
 * @param cancelledAt when it was cancelled, or null
 * @param finishedAt when it became DONE or CANCELLED, or null
 */
public record Sweep(
    String id,
    String owner,
    String name,
    String method,
    String definitionJson,
    Metric metric,
    String earlyStoppingJson,
    Integer maxConcurrent,
    Long seed,
    int trialCount,
    boolean closed,
    Instant cancelledAt,
    String idempotencyKey,
    Instant createdAt,
    Instant finishedAt) {

  public static final String EXTERNAL = "external";

  public Optional<Metric> optionalMetric() {
    return Optional.ofNullable(metric);
  }

  public boolean isExternal() {
    return EXTERNAL.equals(method);
  }

  /**
   * Trials are added by the caller only to an external sweep; the others make their own.
   *
   * @throws SweepConflictException unless this sweep is external
   */
  public void requireExternalToAddTrials() {
    requireExternal("; trials are added only to an external one");
  }

  /**
   * Only an external sweep is closed by its caller; the others are closed from their creation.
   *
   * @throws SweepConflictException unless this sweep is external
   */
  public void requireExternalToClose() {
    requireExternal(", closed from its creation; only an external sweep is closed");
  }

  /**
   * Only an external sweep's trials are pruned by its caller; the others have their own rule.
   *
   * @throws SweepConflictException unless this sweep is external
   */
  public void requireExternalToPrune() {
    requireExternal("; only an external sweep's driver prunes its trials");
  }

  private void requireExternal(String refusal) {
    if (!isExternal()) {
      throw new SweepConflictException("sweep " + id + " is a " + method + " sweep" + refusal);
    }
  }

  public boolean isCancelled() {
    return cancelledAt != null;
  }

  /**
   * Its state from its row and its trials: CANCELLED once cancelled; DONE once closed with none of
   * its trials queued or running; RUNNING until then.
   */
  public SweepState state(Map<JobState, Long> trialCounts) {
    if (isCancelled()) {
      return SweepState.CANCELLED;
    }
    long unfinished =
        trialCounts.getOrDefault(JobState.QUEUED, 0L)
            + trialCounts.getOrDefault(JobState.RUNNING, 0L);
    return closed && unfinished == 0 ? SweepState.DONE : SweepState.RUNNING;
  }
}
