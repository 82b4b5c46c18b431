package io.gpuq.job;

import jakarta.persistence.EntityManager;
import jakarta.persistence.PersistenceContext;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import org.hibernate.Session;

/**
 * A claim in plain JDBC, in the transaction's own connection: one locking select of what the launch
 * needs, then two batches, one of updates of the jobs and one of inserts of their attempts.
 * Measured on H2 with C1, a claim of eight jobs this way costs about half the CPU of loading them
 * and letting Hibernate flush them; a JPQL update and a persisted attempt per job cost more than
 * either (each goes through Spring Data, Hibernate's bulk-update path and an identity insert of its
 * own).
 *
 * <p>The columns are {@link Job#start}'s; the repository contract compares what both store.
 */
class JobStartWritesImpl implements JobStartWrites {

  private static final JobTransition START = JobTransition.START;
  private static final JsonColumns.StringList COMMAND = new JsonColumns.StringList();
  private static final JsonColumns.StringMap ENV = new JsonColumns.StringMap();
  private static final List<JobState> SOURCES = List.copyOf(START.sources());

  private static final String START_JOB =
      "update jobs set state = ?, placement = ?, node = ?, started_at = ?,"
          + " failure_reason = null, failure_message = null, exit_code = null,"
          // As an entity update would: a transaction holding the job (a cancel) then fails instead
          // of overwriting this.
          + " version = version + 1"
          + " where id = ? and state in ("
          + String.join(", ", Collections.nCopies(SOURCES.size(), "?"))
          + ")";

  private static final String LOCK_TO_START =
      "select id, owner, attempt, command, working_dir, env, framework, timeout_millis, created_at,"
          + " queued_at from jobs where state in ("
          + String.join(", ", Collections.nCopies(SOURCES.size(), "?"))
          + ") and id in (%s) for update skip locked";

  private static final String INSERT_ATTEMPT =
      "insert into job_attempts (job_id, attempt, node, placement, budget_bytes, started_at)"
          + " values (?, ?, ?, ?, ?, ?)";

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
                  instant(row, "queued_at")));
        }
      }
    }
    return locked;
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
    // The same JSON and the same instant the entity's converter and Hibernate would write.
    OffsetDateTime at = now.atOffset(ZoneOffset.UTC);
    String[] placementJson = new String[jobs.size()];
    int[] moved;
    try (PreparedStatement update = connection.prepareStatement(START_JOB)) {
      for (int i = 0; i < jobs.size(); i++) {
        ClaimedJob job = jobs.get(i);
        JobPlacement placement = placements.get(job.id());
        placementJson[i] = JsonColumns.write(placement);
        update.setString(1, START.target().name());
        update.setString(2, placementJson[i]);
        update.setString(3, placement.node());
        update.setObject(4, at);
        update.setString(5, job.id());
        for (int source = 0; source < SOURCES.size(); source++) {
          update.setString(6 + source, SOURCES.get(source).name());
        }
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
        JobPlacement placement = placements.get(job.id());
        insert.setString(1, job.id());
        insert.setInt(2, job.attempt());
        insert.setString(3, placement.node());
        insert.setString(4, placementJson[i]);
        insert.setLong(5, placement.budgetBytesPerGpu());
        insert.setObject(6, at);
        insert.addBatch();
        started.add(job);
      }
      if (!started.isEmpty()) {
        insert.executeBatch();
      }
    }
    return started;
  }
}
