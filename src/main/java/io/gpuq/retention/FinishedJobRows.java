package io.gpuq.retention;

import io.gpuq.job.JobState;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * The rows retention reads and deletes, in plain SQL on the shared database: any node may delete
 * any job's rows (the {@code job_labels} and {@code job_attempts} rows go with them, {@code on
 * delete cascade}). Each call is one short transaction over a bounded batch.
 */
public class FinishedJobRows {

  private static final List<String> FINISHED =
      Stream.of(JobState.values()).filter(JobState::isTerminal).map(Enum::name).toList();
  private static final String FINISHED_IN =
      " j.state in (" + String.join(", ", Collections.nCopies(FINISHED.size(), "?")) + ")";

  /**
   * Jobs age on their own from their own end. When sweeps exist, a sweep's trials leave this query
   * (a trial waits for its sweep) and a query of their own ages them by the sweep's end, all at
   * once; the deletion below serves both unchanged.
   */
  private static final String AGING_ON_THEIR_OWN =
      "select j.id from jobs j where" + FINISHED_IN + " and j.finished_at < ?";

  private final JdbcTemplate jdbc;
  private final TransactionTemplate tx;

  public FinishedJobRows(JdbcTemplate jdbc, TransactionTemplate tx) {
    this.jdbc = jdbc;
    this.tx = tx;
  }

  /** Up to {@code max} ids of jobs that finished before {@code cutoff}, longest finished first. */
  public List<String> finishedBefore(Instant cutoff, int max) {
    List<Object> args = new ArrayList<>(FINISHED);
    args.add(OffsetDateTime.ofInstant(cutoff, ZoneOffset.UTC));
    args.add(max);
    return tx.execute(
        status ->
            jdbc.queryForList(
                AGING_ON_THEIR_OWN + " order by j.finished_at limit ?",
                String.class,
                args.toArray()));
  }

  /**
   * Deletes those of {@code ids} that are still finished before {@code cutoff} (a job cannot leave
   * a finished state, but the check costs nothing and keeps the statement safe on its own).
   *
   * @return how many jobs were deleted
   */
  public int delete(Collection<String> ids, Instant cutoff) {
    if (ids.isEmpty()) {
      return 0;
    }
    List<Object> args = new ArrayList<>(ids);
    args.addAll(FINISHED);
    args.add(OffsetDateTime.ofInstant(cutoff, ZoneOffset.UTC));
    String sql =
        "delete from jobs j where j.id in ("
            + String.join(", ", Collections.nCopies(ids.size(), "?"))
            + ") and"
            + FINISHED_IN
            + " and j.finished_at < ?";
    Integer deleted = tx.execute(status -> jdbc.update(sql, args.toArray()));
    return deleted == null ? 0 : deleted;
  }

  /** Which of {@code ids} are jobs in the database. */
  public Set<String> existing(Collection<String> ids) {
    if (ids.isEmpty()) {
      return Set.of();
    }
    String sql =
        "select id from jobs where id in ("
            + String.join(", ", Collections.nCopies(ids.size(), "?"))
            + ")";
    return tx.execute(status -> new HashSet<>(jdbc.queryForList(sql, String.class, ids.toArray())));
  }
}
