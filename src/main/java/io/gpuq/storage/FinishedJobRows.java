package io.gpuq.storage;

import io.gpuq.job.JobState;
import io.gpuq.retention.FinishedJobs;
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

/**
 * The rows retention reads and deletes, in plain SQL on the shared database: any node may delete
 * any job's rows (the {@code job_labels} and {@code job_attempts} rows go with them, {@code on
 * delete cascade}). Each call is one statement over a bounded batch, and so one short transaction
 * of its own (the connection's auto-commit): no transaction template is needed to make it one.
 */
public class FinishedJobRows implements FinishedJobs {

  private static final List<String> FINISHED =
      Stream.of(JobState.values()).filter(JobState::isTerminal).map(Enum::name).toList();
  private static final String FINISHED_IN =
      " j.state in (" + String.join(", ", Collections.nCopies(FINISHED.size(), "?")) + ")";

  /** Jobs of their own age from their own end. */
  private static final String AGING_ON_THEIR_OWN =
      "select j.id from jobs j where"
          + FINISHED_IN
          + " and j.sweep_id is null and j.finished_at < ? order by j.finished_at limit ?";

  /**
   * A sweep's trials wait for their sweep, then age as one from its end ({@code finished_at},
   * stamped once it is done or cancelled, never before its last trial ended): so a trial never
   * leaves a sweep that is still shown. The deletion below serves both queries unchanged, as no
   * trial of a sweep ended after the sweep did.
   */
  private static final String AGING_WITH_THEIR_SWEEP =
      "select j.id from jobs j join sweeps s on s.id = j.sweep_id where"
          + FINISHED_IN
          + " and s.finished_at < ? order by s.finished_at limit ?";

  /** A sweep goes with its last trial, once it has aged as they have. */
  private static final String EMPTY_AGED_SWEEPS =
      "delete from sweeps where finished_at < ?"
          + " and not exists (select 1 from jobs j where j.sweep_id = sweeps.id)";

  private final JdbcTemplate jdbc;

  /** Where deleted jobs' usage is rolled up first (issue 37); null: nowhere. */
  private final UsageTable usage;

  private final org.springframework.transaction.support.TransactionTemplate tx;

  public FinishedJobRows(JdbcTemplate jdbc) {
    this(jdbc, null);
  }

  /**
   * @param usage adds the deleted jobs' figures to its daily roll-up, in the transaction that
   *     deletes them (null: nothing is rolled up)
   */
  public FinishedJobRows(JdbcTemplate jdbc, UsageTable usage) {
    this.jdbc = jdbc;
    this.usage = usage;
    this.tx =
        usage == null
            ? null
            : new org.springframework.transaction.support.TransactionTemplate(
                new org.springframework.jdbc.datasource.DataSourceTransactionManager(
                    jdbc.getDataSource()));
  }

  /**
   * Up to {@code max} ids of jobs that finished before {@code cutoff}, longest finished first: jobs
   * of their own by their own end, then trials by their sweep's.
   */
  @Override
  public List<String> finishedBefore(Instant cutoff, int max) {
    List<String> ids = new ArrayList<>(aged(AGING_ON_THEIR_OWN, cutoff, max));
    if (ids.size() < max) {
      ids.addAll(aged(AGING_WITH_THEIR_SWEEP, cutoff, max - ids.size()));
    }
    return ids;
  }

  private List<String> aged(String query, Instant cutoff, int max) {
    List<Object> args = new ArrayList<>(FINISHED);
    args.add(OffsetDateTime.ofInstant(cutoff, ZoneOffset.UTC));
    args.add(max);
    return jdbc.queryForList(query, String.class, args.toArray());
  }

  /**
   * Deletes the sweeps that ended before {@code cutoff} and have no trial left.
   *
   * @return how many
   */
  @Override
  public int deleteEmptySweeps(Instant cutoff) {
    return jdbc.update(EMPTY_AGED_SWEEPS, OffsetDateTime.ofInstant(cutoff, ZoneOffset.UTC));
  }

  /**
   * Deletes those of {@code ids} that are still finished before {@code cutoff} (a job cannot leave
   * a finished state, but the check costs nothing and keeps the statement safe on its own).
   *
   * @return how many jobs were deleted
   */
  @Override
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
    if (usage == null) {
      return jdbc.update(sql, args.toArray());
    }
    // The same jobs the delete takes, read and rolled up in its transaction: a crash between the
    // two neither loses a job's figures nor counts them twice.
    String select = sql.replaceFirst("^delete from jobs j", "select j.id from jobs j");
    return tx.execute(
        status -> {
          usage.rollUp(jdbc.queryForList(select, String.class, args.toArray()));
          return jdbc.update(sql, args.toArray());
        });
  }

  /** Which of {@code ids} are jobs in the database. */
  @Override
  public Set<String> existing(Collection<String> ids) {
    if (ids.isEmpty()) {
      return Set.of();
    }
    String sql =
        "select id from jobs where id in ("
            + String.join(", ", Collections.nCopies(ids.size(), "?"))
            + ")";
    return new HashSet<>(jdbc.queryForList(sql, String.class, ids.toArray()));
  }
}
