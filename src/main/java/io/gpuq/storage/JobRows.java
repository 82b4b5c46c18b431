package io.gpuq.storage;

import io.gpuq.job.Job;
import io.gpuq.job.JobState;
import io.gpuq.job.JobTransition;
import io.gpuq.job.JobTransition.Change;
import io.gpuq.job.NewJob;
import io.gpuq.job.SweepTrial;
import io.gpuq.text.Cpus;
import java.io.IOException;
import java.io.StringReader;
import java.io.UncheckedIOException;
import java.math.BigDecimal;
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
import java.util.function.Function;
import org.postgresql.PGConnection;
import org.postgresql.copy.CopyManager;

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

  private static final JsonColumns.Dependencies DEPENDENCIES = new JsonColumns.Dependencies();

  private static final String LABEL_COLUMNS = "job_id, label_key, label_value";
  private static final int[] LABEL_TYPES = {Types.VARCHAR, Types.VARCHAR, Types.VARCHAR};

  private static final TransitionSql CANCEL_QUEUED_SQL = new TransitionSql(JobTransition.CANCEL);
  private static final JobTransition CANCEL = JobTransition.CANCEL_RUNNING;
  private static final TransitionSql CANCEL_SQL = new TransitionSql(CANCEL);
  private static final String CANCEL_ATTEMPT = CANCEL_SQL.updateAttempt();

  private static final JsonColumns.StringList COMMAND = new JsonColumns.StringList();
  private static final JsonColumns.StringMap MAP = new JsonColumns.StringMap();

  /**
   * A queued job's row, each column beside its SQL type (bound as such, a null too) and its value:
   * what {@link Job#submit} stores, and what the job store's entity stores for the same job (the
   * sweep store's contract compares the two). The one list of these columns: the insert's column
   * list, its types and its values are all read from it, so that they cannot fall out of step.
   */
  private static final List<Column> JOB =
      List.of(
          new Column("id", Types.VARCHAR, Job::id),
          new Column("owner", Types.VARCHAR, Job::owner),
          new Column("name", Types.VARCHAR, Job::name),
          new Column("state", Types.VARCHAR, job -> job.state().name()),
          new Column("attempt", Types.INTEGER, Job::attempt),
          new Column(
              "command", Types.VARCHAR, job -> COMMAND.convertToDatabaseColumn(job.command())),
          new Column("working_dir", Types.VARCHAR, Job::workingDir),
          new Column("env", Types.VARCHAR, job -> MAP.convertToDatabaseColumn(job.env())),
          new Column("framework", Types.VARCHAR, job -> job.framework().name()),
          new Column("gpus", Types.INTEGER, Job::gpus),
          new Column("gpu_memory_bytes", Types.BIGINT, Job::gpuMemoryBytes),
          new Column("gpu_fraction", Types.DOUBLE, Job::gpuFraction),
          new Column("requested_gpu_memory_bytes", Types.BIGINT, Job::requestedGpuMemoryBytes),
          new Column("requested_gpu_fraction", Types.DOUBLE, Job::requestedGpuFraction),
          new Column("cpus", Types.DECIMAL, job -> decimal(job.host().cpus())),
          new Column("memory_bytes", Types.BIGINT, job -> job.host().memoryBytes()),
          new Column("requested_memory_bytes", Types.BIGINT, Job::requestedMemoryBytes),
          new Column("priority", Types.INTEGER, Job::priority),
          new Column(
              "timeout_millis",
              Types.BIGINT,
              job -> job.timeout() == null ? null : job.timeout().toMillis()),
          new Column("max_attempts", Types.INTEGER, Job::maxAttempts),
          new Column("oom_growth", Types.DOUBLE, Job::oomGrowth),
          new Column("idempotency_key", Types.VARCHAR, Job::idempotencyKey),
          new Column(
              "node_selector",
              Types.VARCHAR,
              job ->
                  job.nodeSelector().isEmpty()
                      ? null
                      : MAP.convertToDatabaseColumn(job.nodeSelector())),
          new Column(
              "preload",
              Types.VARCHAR,
              job ->
                  job.preload().isEmpty() ? null : COMMAND.convertToDatabaseColumn(job.preload())),
          new Column("created_at", Types.TIMESTAMP_WITH_TIMEZONE, Job::createdAt),
          new Column("queued_at", Types.TIMESTAMP_WITH_TIMEZONE, Job::queuedAt),
          new Column(
              "sweep_id",
              Types.VARCHAR,
              job -> job.sweepTrial().map(SweepTrial::sweepId).orElse(null)),
          new Column(
              "trial", Types.INTEGER, job -> job.sweepTrial().map(SweepTrial::number).orElse(null)),
          new Column(
              "parameters",
              Types.VARCHAR,
              job -> job.sweepTrial().map(SweepTrial::parametersJson).orElse(null)),
          new Column(
              "depends_on",
              Types.VARCHAR,
              job ->
                  job.dependsOn().isEmpty()
                      ? null
                      : DEPENDENCIES.convertToDatabaseColumn(job.dependsOn())),
          new Column("held", Types.BOOLEAN, Job::held),
          new Column("version", Types.BIGINT, job -> 0L),
          new Column("preemptible", Types.BOOLEAN, job -> job.preemption().preemptible()),
          new Column(
              "preempt_grace_millis", Types.BIGINT, job -> job.preemption().grace().toMillis()),
          new Column("preempt_signal", Types.VARCHAR, job -> job.preemption().signal().name()),
          new Column(
              "timeout_signal",
              Types.VARCHAR,
              job -> job.timeoutSignal().map(t -> t.signal().name()).orElse(null)),
          new Column(
              "timeout_signal_before_millis",
              Types.BIGINT,
              job -> job.timeoutSignal().map(t -> t.before().toMillis()).orElse(null)),
          new Column("requeues", Types.INTEGER, Job::requeues));

  private static final String JOB_COLUMNS =
      String.join(", ", JOB.stream().map(Column::name).toList());

  private static final int[] JOB_TYPES = JOB.stream().mapToInt(Column::type).toArray();

  /** One column of a row this class inserts: its name, its SQL type, its value for a job. */
  private record Column(String name, int type, Function<Job, Object> value) {}

  private JobRows() {}

  /**
   * Inserts these jobs, queued for their first attempt, with their labels: on PostgreSQL by {@code
   * COPY} (one stream per table, in the caller's transaction), elsewhere by multi-row inserts.
   * PostgreSQL then parses no statement of 12,500 parameters and the client binds none: for a
   * 10,000-trial grid, about 10 % less CPU in the server's backend and half the client's
   * (SweepStoreBench, docs/benchmarks.md). H2 has no COPY from a client.
   */
  public static void insertQueued(Connection connection, List<NewJob> newJobs) throws SQLException {
    List<Job> jobs = new ArrayList<>(newJobs.size());
    List<Object[]> labels = new ArrayList<>();
    for (NewJob newJob : newJobs) {
      Job job = newJob.job();
      jobs.add(job);
      job.labels().forEach((key, value) -> labels.add(new Object[] {job.id(), key, value}));
    }
    List<Object[]> jobRows = new ArrayList<>(jobs.size());
    for (Job job : jobs) {
      jobRows.add(jobValues(job));
    }
    // The jobs first: the labels' foreign key needs them.
    if (connection.isWrapperFor(PGConnection.class)) {
      CopyManager copy = connection.unwrap(PGConnection.class).getCopyAPI();
      copyRows(copy, "jobs", JOB_COLUMNS, jobRows);
      copyRows(copy, "job_labels", LABEL_COLUMNS, labels);
    } else {
      insertRows(connection, "jobs", JOB_COLUMNS, JOB_TYPES, JOBS_PER_INSERT, jobRows);
      insertRows(connection, "job_labels", LABEL_COLUMNS, LABEL_TYPES, LABELS_PER_INSERT, labels);
    }
  }

  /** A job's cores as its {@code cpus} column holds them: an exact decimal (V23). */
  static BigDecimal decimal(Cpus cpus) {
    return new BigDecimal(cpus.toString());
  }

  /** The cores a {@code cpus} column (or a sum of them) holds. */
  static Cpus cpus(BigDecimal column) {
    return Cpus.exactly(column)
        .orElseThrow(() -> new IllegalStateException(column + " is no number of cores"));
  }

  /** A queued job's values, in {@link #JOB}'s order. */
  private static Object[] jobValues(Job job) {
    Object[] values = new Object[JOB.size()];
    for (int i = 0; i < values.length; i++) {
      values[i] = JOB.get(i).value().apply(job);
    }
    return values;
  }

  private static void copyRows(CopyManager copy, String table, String columns, List<Object[]> rows)
      throws SQLException {
    if (rows.isEmpty()) {
      return;
    }
    CopyText text = new CopyText();
    for (Object[] row : rows) {
      for (Object value : row) {
        text.column(value);
      }
      text.endRow();
    }
    try {
      copy.copyIn("copy " + table + " (" + columns + ") from stdin", new StringReader(text.text()));
    } catch (IOException e) {
      // A StringReader does not fail; the driver's own I/O errors come as SQLExceptions.
      throw new UncheckedIOException(e);
    }
  }

  private static void insertRows(
      Connection connection,
      String table,
      String columns,
      int[] types,
      int rowsPerInsert,
      List<Object[]> rows)
      throws SQLException {
    String values = "(" + String.join(", ", Collections.nCopies(types.length, "?")) + ")";
    int full = rows.size() / rowsPerInsert;
    if (full > 0) {
      try (PreparedStatement insert =
          connection.prepareStatement(insertSql(table, columns, values, rowsPerInsert))) {
        for (int chunk = 0; chunk < full; chunk++) {
          bindChunk(
              insert, rows.subList(chunk * rowsPerInsert, (chunk + 1) * rowsPerInsert), types);
          insert.addBatch();
        }
        insert.executeBatch();
      }
    }
    List<Object[]> rest = rows.subList(full * rowsPerInsert, rows.size());
    if (!rest.isEmpty()) {
      try (PreparedStatement insert =
          connection.prepareStatement(insertSql(table, columns, values, rest.size()))) {
        bindChunk(insert, rest, types);
        insert.executeUpdate();
      }
    }
  }

  private static void bindChunk(PreparedStatement insert, List<Object[]> chunk, int[] types)
      throws SQLException {
    int index = 1;
    for (Object[] row : chunk) {
      for (int column = 0; column < types.length; column++) {
        bind(insert, index++, types[column], row[column]);
      }
    }
  }

  private static void bind(PreparedStatement statement, int index, int type, Object value)
      throws SQLException {
    if (value == null) {
      statement.setNull(index, type);
      return;
    }
    switch (type) {
      case Types.VARCHAR -> statement.setString(index, (String) value);
      case Types.INTEGER -> statement.setInt(index, (Integer) value);
      case Types.BIGINT -> statement.setLong(index, (Long) value);
      case Types.DOUBLE -> statement.setDouble(index, (Double) value);
      case Types.DECIMAL -> statement.setBigDecimal(index, (BigDecimal) value);
      case Types.BOOLEAN -> statement.setBoolean(index, (Boolean) value);
      case Types.TIMESTAMP_WITH_TIMEZONE ->
          statement.setObject(index, ((Instant) value).atOffset(ZoneOffset.UTC));
      default -> throw new IllegalArgumentException("no binding for SQL type " + type);
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

  /** Binds the arguments of a {@code where}, then the two live states. */
  private static void bindLive(PreparedStatement statement, List<Object> arguments)
      throws SQLException {
    int index = 1;
    for (Object argument : arguments) {
      statement.setObject(index++, argument);
    }
    statement.setString(index++, JobState.QUEUED.name());
    statement.setString(index, JobState.RUNNING.name());
  }

  /**
   * Cancels the queued and running jobs of {@code where} ({@link JobTransition#CANCEL}, {@link
   * JobTransition#CANCEL_RUNNING}), as {@link JobStore#cancel} does one: a stored fact that the
   * node running a worker acts on. One set-based update for them all, generated from the transition
   * as the entity applies it; then the attempts it left open (of the jobs that were running, a few
   * however many were queued) are ended one by one. Row by row, locked first, a 10,000-trial
   * sweep's cancel took 27 s (issue 24).
   *
   * <p>A claim of one of the jobs either committed first (the update, waiting for it if need be,
   * finds the job running and cancels it, and its open attempt is found afterwards) or waits for
   * this transaction and finds the job cancelled.
   *
   * @param where a condition on {@code jobs} (alias none), e.g. {@code sweep_id = ?}
   * @param arguments its parameters
   * @param queued where the owners' queued counts are locked, in {@code connection}'s transaction
   * @return the ids of the jobs that were running, whose workers are to be stopped
   */
  public static List<String> cancelWhere(
      Connection connection,
      String where,
      List<Object> arguments,
      Instant now,
      OwnerQueuedTable queued)
      throws SQLException {
    Change change = Change.end(null, null, Job.CANCEL_MESSAGE, now);
    // Two updates, one per source state: the running ones finish only when their workers are gone
    // (issue 34), the queued ones now. Their live rows are locked first, so that no claim or
    // requeue moves a job between the two updates, where neither would take it. Their owners'
    // queued counts are locked before them, in the order a claim locks them, so that a cancel and
    // a claim never wait on each other.
    List<String> owners = new ArrayList<>();
    try (PreparedStatement read =
        connection.prepareStatement(
            "select distinct owner from jobs where (" + where + ") and state in (?, ?)")) {
      bindLive(read, arguments);
      try (ResultSet row = read.executeQuery()) {
        while (row.next()) {
          owners.add(row.getString("owner"));
        }
      }
    }
    queued.lockQueuedCounts(owners);
    try (PreparedStatement lock =
        connection.prepareStatement(
            "select id from jobs where (" + where + ") and state in (?, ?) for update")) {
      bindLive(lock, arguments);
      try (ResultSet locked = lock.executeQuery()) {
        while (locked.next()) {
          // each row read is locked until the transaction ends
        }
      }
    }
    for (TransitionSql cancel : List.of(CANCEL_SQL, CANCEL_QUEUED_SQL)) {
      try (PreparedStatement update = connection.prepareStatement(cancel.updateJobsWhere(where))) {
        cancel.bindJobsWhere(update, change, arguments);
        update.executeUpdate();
      }
    }
    List<String> running = new ArrayList<>();
    List<Integer> attempts = new ArrayList<>();
    try (PreparedStatement open =
        connection.prepareStatement(
            "select j.id, j.attempt from jobs j where ("
                + where
                + ") and j.state = ? and exists (select 1 from job_attempts a"
                + " where a.job_id = j.id and a.attempt = j.attempt and a.outcome is null)"
                + " order by j.id")) {
      int index = 1;
      for (Object argument : arguments) {
        open.setObject(index++, argument);
      }
      open.setString(index, CANCEL.target().name());
      try (ResultSet row = open.executeQuery()) {
        while (row.next()) {
          running.add(row.getString("id"));
          attempts.add(row.getInt("attempt"));
        }
      }
    }
    for (int from = 0; from < running.size(); from += BATCH) {
      try (PreparedStatement endAttempt = connection.prepareStatement(CANCEL_ATTEMPT)) {
        for (int i = from; i < Math.min(running.size(), from + BATCH); i++) {
          CANCEL_SQL.bindAttemptUpdate(endAttempt, running.get(i), attempts.get(i), change);
          endAttempt.addBatch();
        }
        endAttempt.executeBatch();
      }
    }
    return running;
  }
}
