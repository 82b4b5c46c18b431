package io.gpuq.storage;

import io.gpuq.job.ClaimedJob;
import io.gpuq.job.Framework;
import io.gpuq.job.HostResources;
import io.gpuq.job.JobPlacement;
import io.gpuq.job.JobState;
import io.gpuq.job.JobTransition;
import io.gpuq.job.JobTransition.Change;
import io.gpuq.job.SweepTrial;
import jakarta.persistence.EntityManager;
import jakarta.persistence.PersistenceContext;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.hibernate.Session;

/**
 * The hot transitions in plain JDBC. A claim, in the transaction's own connection: one locking
 * select of what the launch needs, then two batches, one of updates of the jobs and one of inserts
 * of their attempts. Measured on H2 with C1, a claim of eight jobs this way costs about half the
 * CPU of loading them and letting Hibernate flush them; a JPQL update and a persisted attempt per
 * job cost more than either (each goes through Spring Data, Hibernate's bulk-update path and an
 * identity insert of its own).
 *
 * <p>What is written is generated from {@link JobTransition}'s description, which the entity
 * applies too; the store contract compares what both store.
 */
class TransitionWritesImpl implements TransitionWrites {

  private static final JobTransition START = JobTransition.START;
  private static final TransitionSql START_SQL = new TransitionSql(START);
  private static final TransitionSql SUCCEED_SQL = new TransitionSql(JobTransition.SUCCEED);
  private static final JsonColumns.StringList COMMAND = new JsonColumns.StringList();
  private static final JsonColumns.StringMap ENV = new JsonColumns.StringMap();
  private static final List<JobState> SOURCES = List.copyOf(START.sources());

  private static final String START_JOB = START_SQL.updateJob(false);
  private static final String INSERT_ATTEMPT = START_SQL.insertAttempt();
  // Not a job being preempted: its end requeues it whatever its exit code (issue 35).
  private static final String SUCCEED_JOB =
      SUCCEED_SQL.updateJob(true) + " and preempt_reason is null";
  private static final String SUCCEED_ATTEMPT = SUCCEED_SQL.updateAttempt();

  private static final String LOCK_TO_START =
      "select id, owner, attempt, command, working_dir, env, framework, timeout_millis, created_at,"
          + " queued_at, sweep_id, trial, parameters, cpus, memory_bytes, preload, timeout_signal,"
          + " timeout_signal_before_millis from jobs where state in ("
          + String.join(", ", Collections.nCopies(SOURCES.size(), "?"))
          + ") and id in (%s) for update skip locked";

  @PersistenceContext private EntityManager entityManager;

  @Override
  public List<ClaimedJob> lockToStart(Collection<String> ids) {
    if (ids.isEmpty()) {
      return List.of();
    }
    return entityManager
        .unwrap(Session.class)
        .doReturningWork(connection -> lockToStart(connection, List.copyOf(ids)));
  }

  /**
   * One plain statement, not a Hibernate query: mapping a native query or planning a JPQL
   * projection cost the scheduler more CPU than the database's own work.
   */
  private static List<ClaimedJob> lockToStart(Connection connection, List<String> ids)
      throws SQLException {
    String sql = LOCK_TO_START.formatted(String.join(", ", Collections.nCopies(ids.size(), "?")));
    List<ClaimedJob> locked = new ArrayList<>(ids.size());
    try (PreparedStatement select = connection.prepareStatement(sql)) {
      int parameter = 1;
      for (JobState source : SOURCES) {
        select.setString(parameter++, source.name());
      }
      for (String id : ids) {
        select.setString(parameter++, id);
      }
      try (ResultSet row = select.executeQuery()) {
        while (row.next()) {
          locked.add(
              new ClaimedJob(
                  row.getString("id"),
                  row.getString("owner"),
                  row.getInt("attempt"),
                  COMMAND.convertToEntityAttribute(row.getString("command")),
                  row.getString("working_dir"),
                  ENV.convertToEntityAttribute(row.getString("env")),
                  Framework.valueOf(row.getString("framework")),
                  timeout(row.getObject("timeout_millis", Long.class)),
                  instant(row, "created_at"),
                  instant(row, "queued_at"),
                  trial(row),
                  new HostResources(
                      JobRows.cpus(row.getBigDecimal("cpus")),
                      row.getObject("memory_bytes", Long.class)),
                  preload(row.getString("preload")),
                  timeoutSignal(row)));
        }
      }
    }
    return locked;
  }

  private static List<String> preload(String column) {
    return column == null ? List.of() : COMMAND.convertToEntityAttribute(column);
  }

  private static io.gpuq.job.TimeoutSignal timeoutSignal(ResultSet row) throws SQLException {
    String signal = row.getString("timeout_signal");
    Long before = row.getObject("timeout_signal_before_millis", Long.class);
    return signal == null || before == null
        ? null
        : new io.gpuq.job.TimeoutSignal(
            io.gpuq.job.StopSignal.valueOf(signal), java.time.Duration.ofMillis(before));
  }

  private static SweepTrial trial(ResultSet row) throws SQLException {
    String sweepId = row.getString("sweep_id");
    return sweepId == null
        ? null
        : new SweepTrial(sweepId, row.getInt("trial"), row.getString("parameters"));
  }

  private static Duration timeout(Long millis) {
    return millis == null ? null : Duration.ofMillis(millis);
  }

  private static Instant instant(ResultSet row, String column) throws SQLException {
    return row.getObject(column, OffsetDateTime.class).toInstant();
  }

  @Override
  public List<ClaimedJob> startWithoutLoading(
      List<ClaimedJob> jobs, Map<String, JobPlacement> placements, Instant now) {
    if (jobs.isEmpty()) {
      return List.of();
    }
    return entityManager
        .unwrap(Session.class)
        .doReturningWork(connection -> start(connection, jobs, placements, now));
  }

  private static List<ClaimedJob> start(
      Connection connection,
      List<ClaimedJob> jobs,
      Map<String, JobPlacement> placements,
      Instant now)
      throws SQLException {
    Set<String> owners = new HashSet<>();
    jobs.forEach(job -> owners.add(job.owner()));
    OwnerRowsImpl.lockQueuedCounts(connection, owners);
    int[] moved;
    try (PreparedStatement update = connection.prepareStatement(START_JOB)) {
      for (ClaimedJob job : jobs) {
        START_SQL.bindJob(update, 1, start(placements, job, now), job.id(), null);
        update.addBatch();
      }
      moved = update.executeBatch();
    }
    List<ClaimedJob> started = new ArrayList<>(jobs.size());
    try (PreparedStatement insert = connection.prepareStatement(INSERT_ATTEMPT)) {
      for (int i = 0; i < jobs.size(); i++) {
        // 0: no longer in a state START may leave. (A driver that does not count a batch's rows
        // answers SUCCESS_NO_INFO; H2 and PostgreSQL count them.)
        if (moved[i] == 0) {
          continue;
        }
        ClaimedJob job = jobs.get(i);
        START_SQL.bindAttemptInsert(insert, job.id(), job.attempt(), start(placements, job, now));
        insert.addBatch();
        started.add(job);
      }
      if (!started.isEmpty()) {
        insert.executeBatch();
      }
    }
    return started;
  }

  private static Change start(Map<String, JobPlacement> placements, ClaimedJob job, Instant now) {
    return Change.start(placements.get(job.id()), now);
  }

  @Override
  public boolean succeedWithoutLoading(String jobId, int attempt, Integer exitCode, Instant now) {
    Change change = Change.end(exitCode, null, null, now);
    return entityManager
        .unwrap(Session.class)
        .doReturningWork(
            connection -> {
              try (PreparedStatement job = connection.prepareStatement(SUCCEED_JOB)) {
                SUCCEED_SQL.bindJob(job, 1, change, jobId, attempt);
                if (job.executeUpdate() == 0) {
                  return false;
                }
              }
              try (PreparedStatement ended = connection.prepareStatement(SUCCEED_ATTEMPT)) {
                SUCCEED_SQL.bindAttemptUpdate(ended, jobId, attempt, change);
                ended.executeUpdate();
              }
              return true;
            });
  }
}
