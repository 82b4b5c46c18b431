package io.gpuq.job;

import java.time.Instant;
import java.util.List;

/**
 * A job to submit: who asked for what, and when.
 *
 * @param trial the sweep and trial it belongs to; null for a job of its own
 * @param notifications where to POST its events (issue 37), written with it
 */
public record NewJob(
    String id,
    String owner,
    JobSpec spec,
    String idempotencyKey,
    SweepTrial trial,
    Instant createdAt,
    List<Dependency> dependsOn,
    boolean held,
    List<NotifyTarget> notifications) {

  public NewJob {
    dependsOn = dependsOn == null ? List.of() : List.copyOf(dependsOn);
    notifications = notifications == null ? List.of() : List.copyOf(notifications);
  }

  /** A job of its own, with no dependencies and no notifications. */
  public NewJob(String id, String owner, JobSpec spec, String idempotencyKey, Instant createdAt) {
    this(id, owner, spec, idempotencyKey, null, createdAt, List.of(), false, List.of());
  }

  /**
   * The job as it is first stored: queued for its first attempt; held while {@code held} (issue 37:
   * one of its dependencies is not met yet), so that no pass reads it.
   */
  public Job job() {
    Job job = Job.submit(id, owner, spec, idempotencyKey, trial, createdAt);
    job.dependOn(dependsOn, held);
    return job;
  }
}
