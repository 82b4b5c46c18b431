package io.gpuq.storage;

import io.gpuq.job.Job;
import io.gpuq.job.JobTransition;
import io.gpuq.job.JobTransition.Change;
import io.gpuq.job.NewJob;
import io.gpuq.job.SweepTrial;
import java.io.IOException;
import java.io.StringReader;
import java.io.UncheckedIOException;
import java.sql.SQLException;
import java.sql.Types;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.function.Function;
import javax.sql.DataSource;
import org.postgresql.PGConnection;
import org.postgresql.copy.CopyManager;
import org.springframework.jdbc.core.ConnectionCallback;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.core.simple.JdbcClient;

/**
 * A sweep's trials, many rows of {@code jobs} (and {@code job_labels}) at once, in the caller's
 * transaction: inserted queued, and cancelled. One JPA save (or load) per job cost a 10,000-trial
 * sweep seconds; these are multi-row statements and batches of {@value #BATCH}. What they write is
 * what the entity writes: an insert is {@link Job#submit}'s job, column by column, and a cancel is
 * {@link JobTransition#CANCEL} through {@link TransitionSql}, the description the entity applies
 * too.
 *
 * <p>Its own class beside {@link JobTable}, which holds the scheduler's statements on the same
 * table (the queue's heads, a claim, a success, a page's ids): the two share no statement, and
 * together they would be some 950 lines. Its statements run through a {@link JdbcClient} over the
 * data source, which joins the caller's transaction; the insert's and the transition's generated
 * SQL keeps positional parameters (their number and order are data: the columns, the rows, the
 * transition's writes), bound by index (the insert's by the template, each with its SQL type).
 */
public final class TrialTable {

  /** Rows per JDBC batch of updates. */
  static final int BATCH = 500;

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
          new Column("cpus", Types.DECIMAL, job -> JobTable.decimal(job.host().cpus())),
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

  /** A sweep's live trials, whose owners' queued counts a cancel locks first. */
  private static final String LIVE_OWNERS =
      "select distinct owner from jobs where sweep_id = :sweep and state in ('QUEUED', 'RUNNING')";

  /** A sweep's live trials, locked until the transaction ends. */
  private static final String LOCK_LIVE =
      "select id from jobs where sweep_id = :sweep and state in ('QUEUED', 'RUNNING') for update";

  /** The cancel's two updates, one per source state, generated from the transitions. */
  private static final String CANCEL_RUNNING_JOBS = CANCEL_SQL.updateJobsWhere("sweep_id = ?");

  private static final String CANCEL_QUEUED_JOBS =
      CANCEL_QUEUED_SQL.updateJobsWhere("sweep_id = ?");

  /** The attempts a cancel left open: those of the trials that were running. */
  private static final String OPEN_ATTEMPTS =
      "select j.id, j.attempt from jobs j where j.sweep_id = :sweep and j.state = :state"
          + " and exists (select 1 from job_attempts a"
          + " where a.job_id = j.id and a.attempt = j.attempt and a.outcome is null)"
          + " order by j.id";

  private final JdbcTemplate jdbc;
  private final JdbcClient sql;

  /** The owners' queued counts, locked by a cancel in the caller's transaction. */
  private final OwnerQueuedTable queued;

  public TrialTable(DataSource dataSource) {
    this.jdbc = new JdbcTemplate(dataSource);
    this.sql = JdbcClient.create(jdbc);
    this.queued = new OwnerQueuedTable(dataSource);
  }

  /**
   * Inserts these jobs, queued for their first attempt, with their labels: on PostgreSQL by {@code
   * COPY} (one stream per table, in the caller's transaction), elsewhere by multi-row inserts.
   * PostgreSQL then parses no statement of 12,500 parameters and the client binds none: for a
   * 10,000-trial grid, about 10 % less CPU in the server's backend and half the client's
   * (SweepStoreBench, docs/benchmarks.md). H2 has no COPY from a client.
   */
  public void insertQueued(List<NewJob> newJobs) {
    List<Object[]> jobRows = new ArrayList<>(newJobs.size());
    List<Object[]> labels = new ArrayList<>();
    for (NewJob newJob : newJobs) {
      Job job = newJob.job();
      jobRows.add(jobValues(job));
      job.labels().forEach((key, value) -> labels.add(new Object[] {job.id(), key, value}));
    }
    // The jobs first: the labels' foreign key needs them. COPY is the driver's own API (its
    // CopyManager), so it takes the connection itself: the transaction's, as JdbcTemplate hands it
    // out.
    Boolean copied =
        jdbc.execute(
            (ConnectionCallback<Boolean>)
                connection -> {
                  if (!connection.isWrapperFor(PGConnection.class)) {
                    return false;
                  }
                  CopyManager copy = connection.unwrap(PGConnection.class).getCopyAPI();
                  copyRows(copy, "jobs", JOB_COLUMNS, jobRows);
                  copyRows(copy, "job_labels", LABEL_COLUMNS, labels);
                  return true;
                });
    if (!Boolean.TRUE.equals(copied)) {
      insertRows("jobs", JOB_COLUMNS, JOB_TYPES, JOBS_PER_INSERT, jobRows);
      insertRows("job_labels", LABEL_COLUMNS, LABEL_TYPES, LABELS_PER_INSERT, labels);
    }
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

  /**
   * {@code rowsPerInsert} rows a statement: the full statements in one JDBC batch, then the rest in
   * one statement, bound by {@link JdbcTemplate} with each column's SQL type (a null too), from
   * plain arrays. Not through the {@link JdbcClient}: it writes no batch, and its typed parameters
   * are an object each: for 10,000 trials (380,000 values) that cost the client about 60 ms more
   * CPU a sweep (SweepStoreBench, PostgreSQL's multi-row variant, p50 of 5 rounds, two runs each:
   * through the client 214 and 189 ms; this way 146 and 155 ms; JobRows before 122 to 149 ms).
   */
  private void insertRows(
      String table, String columns, int[] types, int rowsPerInsert, List<Object[]> rows) {
    String values = "(" + String.join(", ", Collections.nCopies(types.length, "?")) + ")";
    int full = rows.size() / rowsPerInsert;
    if (full > 0) {
      List<Object[]> statements = new ArrayList<>(full);
      for (int chunk = 0; chunk < full; chunk++) {
        statements.add(
            flat(rows.subList(chunk * rowsPerInsert, (chunk + 1) * rowsPerInsert), types.length));
      }
      jdbc.batchUpdate(
          insertSql(table, columns, values, rowsPerInsert),
          statements,
          repeated(types, rowsPerInsert));
    }
    List<Object[]> rest = rows.subList(full * rowsPerInsert, rows.size());
    if (!rest.isEmpty()) {
      jdbc.update(
          insertSql(table, columns, values, rest.size()),
          flat(rest, types.length),
          repeated(types, rest.size()));
    }
  }

  /** These rows' values one after the other, as their columns hold them. */
  private static Object[] flat(List<Object[]> rows, int columns) {
    Object[] values = new Object[rows.size() * columns];
    int index = 0;
    for (Object[] row : rows) {
      for (Object value : row) {
        values[index++] = jdbc(value);
      }
    }
    return values;
  }

  /** The columns' SQL types, once per row. */
  private static int[] repeated(int[] types, int rows) {
    int[] all = new int[types.length * rows];
    for (int row = 0; row < rows; row++) {
      System.arraycopy(types, 0, all, row * types.length, types.length);
    }
    return all;
  }

  /** A value as its column holds it: an instant at UTC, whatever the server's time zone. */
  private static Object jdbc(Object value) {
    return value instanceof Instant instant ? instant.atOffset(ZoneOffset.UTC) : value;
  }

  private static String insertSql(String table, String columns, String values, int rows) {
    return "insert into "
        + table
        + " ("
        + columns
        + ") values "
        + String.join(", ", Collections.nCopies(rows, values));
  }

  /**
   * Cancels the queued and running trials of this sweep ({@link JobTransition#CANCEL}, {@link
   * JobTransition#CANCEL_RUNNING}), as {@link io.gpuq.job.JobStore#cancel} does one job: a stored
   * fact that the node running a worker acts on. One set-based update per source state for them
   * all, generated from the transition as the entity applies it; then the attempts it left open (of
   * the trials that were running, a few however many were queued) are ended in batches. Row by row,
   * locked first, a 10,000-trial sweep's cancel took 27 s (issue 24).
   *
   * <p>A claim of one of the trials either committed first (the update, waiting for it if need be,
   * finds the job running and cancels it, and its open attempt is found afterwards) or waits for
   * this transaction and finds the job cancelled.
   *
   * @return the ids of the trials that were running, whose workers are to be stopped
   */
  public List<String> cancelLiveTrialsOf(String sweepId, Instant now) {
    Change change = Change.end(null, null, Job.CANCEL_MESSAGE, now);
    // Two updates, one per source state: the running ones finish only when their workers are gone
    // (issue 34), the queued ones now. Their live rows are locked first, so that no claim or
    // requeue moves a job between the two updates, where neither would take it. Their owners'
    // queued counts are locked before them, in the order a claim locks them, so that a cancel and
    // a claim never wait on each other.
    queued.lockQueuedCounts(
        sql.sql(LIVE_OWNERS).param("sweep", sweepId).query(String.class).list());
    // Each row read is locked until the transaction ends.
    sql.sql(LOCK_LIVE).param("sweep", sweepId).query(String.class).list();
    List<Object> bySweep = List.of(sweepId);
    sql.sql(CANCEL_RUNNING_JOBS).params(CANCEL_SQL.jobsWhereValues(change, bySweep)).update();
    sql.sql(CANCEL_QUEUED_JOBS).params(CANCEL_QUEUED_SQL.jobsWhereValues(change, bySweep)).update();
    List<String> running = new ArrayList<>();
    List<Object[]> endAttempts = new ArrayList<>();
    sql.sql(OPEN_ATTEMPTS)
        .param("sweep", sweepId)
        .param("state", CANCEL.target().name())
        .query(
            row -> {
              String id = row.getString("id");
              running.add(id);
              endAttempts.add(
                  CANCEL_SQL.attemptUpdateValues(id, row.getInt("attempt"), change).toArray());
            });
    for (int from = 0; from < endAttempts.size(); from += BATCH) {
      jdbc.batchUpdate(
          CANCEL_ATTEMPT, endAttempts.subList(from, Math.min(endAttempts.size(), from + BATCH)));
    }
    return running;
  }
}
