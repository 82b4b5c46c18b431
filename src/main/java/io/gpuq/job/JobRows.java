package io.gpuq.job;

import io.gpuq.job.JobTransition.Change;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * Many jobs written at once in plain JDBC, in the caller's transaction: a sweep's trials inserted
 * queued, and cancelled. One JPA save (or load) per job cost a 10,000-trial sweep seconds; these
 * are batches of {@value #BATCH}. What they write is what the entity writes: an insert is {@link
 * Job#submit}'s job, column by column, and a cancel is {@link JobTransition#CANCEL} through {@link
 * TransitionSql}, the description the entity applies too.
 */
public final class JobRows {

  /** Rows per JDBC batch of updates. */
  public static final int BATCH = 500;

  /**
   * Rows per multi-row insert: one statement per 500 jobs (12,500 parameters) or 2,500 labels
   * (7,500), below PostgreSQL's 32,767 with room for more columns. A multi-row insert costs the
   * database one statement instead of hundreds, and needs no driver setting (such as PostgreSQL's
   * reWriteBatchedInserts) to do so. 500 rather than 100 jobs a statement: a 10,000-trial sweep's
   * rows took PostgreSQL 10 to 20 % less time, H2 the same (SweepStoreBench, docs/benchmarks.md).
   */
  static final int JOBS_PER_INSERT = 500;

  static final int LABELS_PER_INSERT = 2_500;

  private static final String JOB_COLUMNS =
      "id, owner, name, state, attempt, command, working_dir, env, framework, gpus,"
          + " gpu_memory_bytes, gpu_fraction, requested_gpu_memory_bytes, requested_gpu_fraction,"
          + " priority, timeout_millis, max_attempts, oom_growth, idempotency_key, node_selector,"
          + " created_at, queued_at, sweep_id, trial, parameters, version";
  private static final String JOB_VALUES =
      "(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 0)";
  private static final String LABEL_COLUMNS = "job_id, label_key, label_value";
  private static final String LABEL_VALUES = "(?, ?, ?)";

  private static final JobTransition CANCEL = JobTransition.CANCEL;
  private static final TransitionSql CANCEL_SQL = new TransitionSql(CANCEL);
  private static final String CANCEL_JOB = CANCEL_SQL.updateJob(false);
  private static final String CANCEL_ATTEMPT = CANCEL_SQL.updateAttempt();
  private static final List<JobState> CANCELLABLE = List.copyOf(CANCEL.sources());

  private static final JsonColumns.StringList COMMAND = new JsonColumns.StringList();
  private static final JsonColumns.StringMap MAP = new JsonColumns.StringMap();

  private JobRows() {}

  /** Inserts these jobs, queued for their first attempt, with their labels. */
  public static void insertQueued(Connection connection, List<NewJob> newJobs) throws SQLException {
    List<Job> jobs = new ArrayList<>(newJobs.size());
    List<String[]> labels = new ArrayList<>();
    for (NewJob newJob : newJobs) {
      Job job = newJob.job();
      jobs.add(job);
      job.labels().forEach((key, value) -> labels.add(new String[] {job.id(), key, value}));
    }
    // The jobs first: the labels' foreign key needs them.
    insertRows(
        connection, "jobs", JOB_COLUMNS, JOB_VALUES, JOBS_PER_INSERT, jobs, JobRows::bindJob);
    insertRows(
        connection,
        "job_labels",
        LABEL_COLUMNS,
        LABEL_VALUES,
        LABELS_PER_INSERT,
        labels,
        (insert, index, label) -> {
          insert.setString(index, label[0]);
          insert.setString(index + 1, label[1]);
          insert.setString(index + 2, label[2]);
          return index + 3;
        });
  }

  /** Binds one row's values from {@code index}; returns the next free index. */
  @FunctionalInterface
  private interface RowBinder<T> {
    int bind(PreparedStatement insert, int index, T row) throws SQLException;
  }

  private static <T> void insertRows(
      Connection connection,
      String table,
      String columns,
      String values,
      int rowsPerInsert,
      List<T> rows,
      RowBinder<T> binder)
      throws SQLException {
    int full = rows.size() / rowsPerInsert;
    if (full > 0) {
      try (PreparedStatement insert =
          connection.prepareStatement(insertSql(table, columns, values, rowsPerInsert))) {
        for (int chunk = 0; chunk < full; chunk++) {
          bindChunk(
              insert, rows.subList(chunk * rowsPerInsert, (chunk + 1) * rowsPerInsert), binder);
          insert.addBatch();
        }
        insert.executeBatch();
      }
    }
    List<T> rest = rows.subList(full * rowsPerInsert, rows.size());
    if (!rest.isEmpty()) {
      try (PreparedStatement insert =
          connection.prepareStatement(insertSql(table, columns, values, rest.size()))) {
        bindChunk(insert, rest, binder);
        insert.executeUpdate();
      }
    }
  }

  private static <T> void bindChunk(PreparedStatement insert, List<T> chunk, RowBinder<T> binder)
      throws SQLException {
    int index = 1;
    for (T row : chunk) {
      index = binder.bind(insert, index, row);
    }
  }

  private static String insertSql(String table, String columns, String values, int rows) {
    return "insert into "
        + table
        + " ("
        + columns
        + ") values "
        + String.join(", ", Collections.nCopies(rows, values));
  }

  private static int bindJob(PreparedStatement insert, int index, Job job) throws SQLException {
    SweepTrial trial = job.sweepTrial().orElse(null);
    int i = index;
    insert.setString(i++, job.id());
    insert.setString(i++, job.owner());
    insert.setString(i++, job.name());
    insert.setString(i++, job.state().name());
    insert.setInt(i++, job.attempt());
    insert.setString(i++, COMMAND.convertToDatabaseColumn(job.command()));
    insert.setString(i++, job.workingDir());
    insert.setString(i++, MAP.convertToDatabaseColumn(job.env()));
    insert.setString(i++, job.framework().name());
    insert.setInt(i++, job.gpus());
    setLong(insert, i++, job.gpuMemoryBytes());
    setDouble(insert, i++, job.gpuFraction());
    setLong(insert, i++, job.requestedGpuMemoryBytes());
    setDouble(insert, i++, job.requestedGpuFraction());
    insert.setInt(i++, job.priority());
    setLong(insert, i++, job.timeout() == null ? null : job.timeout().toMillis());
    insert.setInt(i++, job.maxAttempts());
    insert.setDouble(i++, job.oomGrowth());
    insert.setString(i++, job.idempotencyKey());
    insert.setString(
        i++, job.nodeSelector().isEmpty() ? null : MAP.convertToDatabaseColumn(job.nodeSelector()));
    insert.setObject(i++, job.createdAt().atOffset(ZoneOffset.UTC));
    insert.setObject(i++, job.queuedAt().atOffset(ZoneOffset.UTC));
    insert.setString(i++, trial == null ? null : trial.sweepId());
    if (trial == null) {
      insert.setNull(i++, Types.INTEGER);
    } else {
      insert.setInt(i++, trial.number());
    }
    insert.setString(i++, trial == null ? null : trial.parametersJson());
    return i;
  }

  private static void setLong(PreparedStatement statement, int index, Long value)
      throws SQLException {
    if (value == null) {
      statement.setNull(index, Types.BIGINT);
    } else {
      statement.setLong(index, value);
    }
  }

  private static void setDouble(PreparedStatement statement, int index, Double value)
      throws SQLException {
    if (value == null) {
      statement.setNull(index, Types.DOUBLE);
    } else {
      statement.setDouble(index, value);
    }
  }

  /** A job a cancel moved, and the state it left. */
  public record Cancelled(String id, JobState from) {}

  /**
   * Cancels the queued and running jobs of {@code where} ({@link JobTransition#CANCEL}), as {@link
   * JobStore#cancel} does one: a stored fact that the node running a worker acts on. The jobs are
   * locked first, so that a claim of one of them either came first (it is cancelled as running) or
   * waits and finds it cancelled.
   *
   * @param where a condition on {@code jobs} (alias none), e.g. {@code sweep_id = ?}
   * @param arguments its parameters
   * @return the jobs it cancelled
   */
  public static List<Cancelled> cancelWhere(
      Connection connection, String where, List<Object> arguments, Instant now)
      throws SQLException {
    List<Cancelled> locked = new ArrayList<>();
    List<Integer> attempts = new ArrayList<>();
    String select =
        "select id, state, attempt from jobs where ("
            + where
            + ") and state in ("
            + String.join(", ", Collections.nCopies(CANCELLABLE.size(), "?"))
            + ") order by id for update";
    try (PreparedStatement lock = connection.prepareStatement(select)) {
      int index = 1;
      for (Object argument : arguments) {
        lock.setObject(index++, argument);
      }
      for (JobState state : CANCELLABLE) {
        lock.setString(index++, state.name());
      }
      try (ResultSet row = lock.executeQuery()) {
        while (row.next()) {
          locked.add(new Cancelled(row.getString("id"), JobState.valueOf(row.getString("state"))));
          attempts.add(row.getInt("attempt"));
        }
      }
    }
    Change change = Change.end(null, null, Job.CANCEL_MESSAGE, now);
    List<Cancelled> moved = new ArrayList<>(locked.size());
    for (int from = 0; from < locked.size(); from += BATCH) {
      int to = Math.min(locked.size(), from + BATCH);
      int[] counts;
      try (PreparedStatement update = connection.prepareStatement(CANCEL_JOB)) {
        for (int i = from; i < to; i++) {
          CANCEL_SQL.bindJob(update, 1, change, locked.get(i).id(), null);
          update.addBatch();
        }
        counts = update.executeBatch();
      }
      // A running job's attempt is open and ends with it; a queued one has no open attempt.
      try (PreparedStatement endAttempt = connection.prepareStatement(CANCEL_ATTEMPT)) {
        boolean any = false;
        for (int i = from; i < to; i++) {
          if (counts[i - from] == 0) {
            continue;
          }
          Cancelled job = locked.get(i);
          moved.add(job);
          if (job.from() == JobState.RUNNING) {
            CANCEL_SQL.bindAttemptUpdate(endAttempt, job.id(), attempts.get(i), change);
            endAttempt.addBatch();
            any = true;
          }
        }
        if (any) {
          endAttempt.executeBatch();
        }
      }
    }
    return moved;
  }
}
