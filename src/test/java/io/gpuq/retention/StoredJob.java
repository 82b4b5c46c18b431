package io.gpuq.retention;

import io.gpuq.job.JobIds;
import io.gpuq.job.JobState;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * Test-data builder for a job row as gpuq stores it, with one label and (unless queued) one
 * attempt: {@code aJob().finishedAt(t).storedIn(jdbc)}. Written in SQL so that a job can have
 * finished at any time the test needs.
 */
final class StoredJob {

  private JobState state = JobState.SUCCEEDED;
  private Instant createdAt = Instant.parse("2026-11-01T00:00:00Z");
  private Instant finishedAt = createdAt.plus(Duration.ofHours(1));
  private String sweepId;
  private Integer trial;
  private Duration waited = Duration.ZERO;

  static StoredJob aJob() {
    return new StoredJob();
  }

  StoredJob in(JobState state) {
    this.state = state;
    if (!state.isTerminal()) {
      finishedAt = null;
    }
    return this;
  }

  StoredJob finishedAt(Instant finishedAt) {
    this.finishedAt = finishedAt;
    this.createdAt = finishedAt.minus(Duration.ofHours(1));
    return this;
  }

  /** A trial of that sweep (see {@link StoredSweep}), numbered {@code number}. */
  StoredJob trialOf(String sweepId, int number) {
    this.sweepId = sweepId;
    this.trial = number;
    return this;
  }

  /** Its attempt started this long after its creation (its wait, issue 37). */
  StoredJob waited(Duration waited) {
    this.waited = waited;
    return this;
  }

  StoredJob createdAt(Instant createdAt) {
    this.createdAt = createdAt;
    return this;
  }

  /** Stores the job and returns its id, a ULID of its creation time. */
  String storedIn(JdbcTemplate jdbc) {
    String id = new JobIds(Clock.fixed(createdAt, ZoneOffset.UTC)).next();
    OffsetDateTime created = OffsetDateTime.ofInstant(createdAt, ZoneOffset.UTC);
    OffsetDateTime finished =
        finishedAt == null ? null : OffsetDateTime.ofInstant(finishedAt, ZoneOffset.UTC);
    jdbc.update(
        "insert into jobs (id, owner, name, state, attempt, command, env, framework, gpus,"
            + " priority, max_attempts, oom_growth, node, created_at, queued_at, started_at,"
            + " finished_at, sweep_id, trial, parameters, version) values (?, 'alice', 'train', ?,"
            + " 1, '[\"true\"]', '{}', 'GENERIC', 0, 0, 1, 1.5, ?, ?, ?, ?, ?, ?, ?, ?, 0)",
        id,
        state.name(),
        state == JobState.QUEUED ? null : "node-1",
        created,
        created,
        state == JobState.QUEUED ? null : created,
        finished,
        sweepId,
        trial,
        sweepId == null ? null : "{\"seed\":" + trial + "}");
    jdbc.update(
        "insert into job_labels (job_id, label_key, label_value) values (?, 'team', 'nlp')", id);
    if (state != JobState.QUEUED) {
      jdbc.update(
          "insert into job_attempts (job_id, attempt, node, budget_bytes, started_at, finished_at,"
              + " outcome) values (?, 1, 'node-1', 0, ?, ?, ?)",
          id,
          created.plus(waited),
          finished,
          state == JobState.RUNNING ? null : state.name());
    }
    return id;
  }
}
