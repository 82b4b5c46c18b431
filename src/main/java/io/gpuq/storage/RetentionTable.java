package io.gpuq.storage;

import io.gpuq.job.JobState;
import io.gpuq.retention.FinishedJobs;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * The SQL of retention: the finished rows of {@code jobs} and {@code sweeps} it reads and deletes
 * on the shared database. Any node may delete any job's rows (the {@code job_labels} and {@code
 * job_attempts} rows go with them, {@code on delete cascade}). Each call is one statement over a
 * bounded batch, and so one short transaction of its own (the connection's auto-commit): no
 * transaction template is needed to make it one, but for the roll-up of usage beside a delete.
 */
public class RetentionTable implements FinishedJobs {

  /** The value of {@code :finished}: the names of the states a job ends in. */
  private static final List<String> FINISHED =
      Stream.of(JobState.values()).filter(JobState::isTerminal).map(Enum::name).toList();

  /** Jobs of their own age from their own end. */
  private static final String AGING_ON_THEIR_OWN =
      "select j.id from jobs j where j.state in (:finished) and j.sweep_id is null"
          + " and j.finished_at < :cutoff order by j.finished_at limit :max";

  /**
   * A sweep's trials wait for their sweep, then age as one from its end ({@code finished_at},
   * stamped once it is done or cancelled, never before its last trial ended): so a trial never
   * leaves a sweep that is still shown. The deletion below serves both queries unchanged, as no
   * trial of a sweep ended after the sweep did.
   */
  private static final String AGING_WITH_THEIR_SWEEP =
      "select j.id from jobs j join sweeps s on s.id = j.sweep_id where j.state in (:finished)"
          + " and s.finished_at < :cutoff order by s.finished_at limit :max";

  /** A sweep goes with its last trial, once it has aged as they have. */
  private static final String EMPTY_AGED_SWEEPS =
      "delete from sweeps where finished_at < :cutoff"
          + " and not exists (select 1 from jobs j where j.sweep_id = sweeps.id)";

  /** The jobs {@link #DELETE} takes, read first in its transaction to roll their usage up. */
  private static final String DELETABLE =
      "select j.id from jobs j where j.id in (:ids) and j.state in (:finished)"
          + " and j.finished_at < :cutoff";

  private static final String DELETE =
      "delete from jobs j where j.id in (:ids) and j.state in (:finished)"
          + " and j.finished_at < :cutoff";

  private static final String EXISTING = "select id from jobs where id in (:ids)";

  private final JdbcClient sql;

  /** Where deleted jobs' usage is rolled up first (issue 37); null: nowhere. */
  private final UsageTable usage;

  private final TransactionTemplate tx;

  public RetentionTable(JdbcTemplate jdbc) {
    this(jdbc, null);
  }

  /**
   * @param usage adds the deleted jobs' figures to its daily roll-up, in the transaction that
   *     deletes them (null: nothing is rolled up)
   */
  public RetentionTable(JdbcTemplate jdbc, UsageTable usage) {
    this.sql = JdbcClient.create(jdbc);
    this.usage = usage;
    this.tx =
        usage == null
            ? null
            : new TransactionTemplate(new DataSourceTransactionManager(jdbc.getDataSource()));
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
    return sql.sql(query)
        .param("finished", FINISHED)
        .param("cutoff", at(cutoff))
        .param("max", max)
        .query(String.class)
        .list();
  }

  /**
   * Deletes the sweeps that ended before {@code cutoff} and have no trial left.
   *
   * @return how many
   */
  @Override
  public int deleteEmptySweeps(Instant cutoff) {
    return sql.sql(EMPTY_AGED_SWEEPS).param("cutoff", at(cutoff)).update();
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
    if (usage == null) {
      return among(DELETE, ids, cutoff).update();
    }
    // The same jobs the delete takes, read and rolled up in its transaction: a crash between the
    // two neither loses a job's figures nor counts them twice.
    return tx.execute(
        status -> {
          usage.rollUp(among(DELETABLE, ids, cutoff).query(String.class).list());
          return among(DELETE, ids, cutoff).update();
        });
  }

  private JdbcClient.StatementSpec among(String statement, Collection<String> ids, Instant cutoff) {
    return sql.sql(statement)
        .param("ids", ids)
        .param("finished", FINISHED)
        .param("cutoff", at(cutoff));
  }

  /** Which of {@code ids} are jobs in the database. */
  @Override
  public Set<String> existing(Collection<String> ids) {
    if (ids.isEmpty()) {
      return Set.of();
    }
    return new HashSet<>(sql.sql(EXISTING).param("ids", ids).query(String.class).list());
  }

  private static OffsetDateTime at(Instant instant) {
    return OffsetDateTime.ofInstant(instant, ZoneOffset.UTC);
  }
}
