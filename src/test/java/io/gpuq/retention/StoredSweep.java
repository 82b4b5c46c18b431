package io.gpuq.retention;

import io.gpuq.job.JobIds;
import java.time.Clock;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * Test-data builder for a sweep's row, running (not finished) unless told when it finished: {@code
 * aSweep().finishedAt(t).storedIn(jdbc)}; its trials are {@code StoredJob.aJob().trialOf(id, n)}.
 */
final class StoredSweep {

  private Instant createdAt = Instant.parse("2026-10-01T00:00:00Z");
  private Instant finishedAt;

  static StoredSweep aSweep() {
    return new StoredSweep();
  }

  StoredSweep finishedAt(Instant finishedAt) {
    this.finishedAt = finishedAt;
    return this;
  }

  /** Stores the sweep's row and returns its id. */
  String storedIn(JdbcTemplate jdbc) {
    String id = new JobIds(Clock.fixed(createdAt, ZoneOffset.UTC)).next();
    jdbc.update(
        "insert into sweeps (id, owner, name, method, definition, trial_count, closed, created_at,"
            + " finished_at, version) values (?, 'alice', 'seeds', 'grid', '{}', 0, true, ?, ?, 0)",
        id,
        OffsetDateTime.ofInstant(createdAt, ZoneOffset.UTC),
        finishedAt == null ? null : OffsetDateTime.ofInstant(finishedAt, ZoneOffset.UTC));
    return id;
  }
}
