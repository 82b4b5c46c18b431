package io.gpuq.storage;

import io.gpuq.job.JobState;
import io.gpuq.job.TrialSeries;
import io.gpuq.reported.MetricsCaps;
import io.gpuq.reported.MetricsJson;
import io.gpuq.reported.MetricsPage;
import io.gpuq.reported.MetricsUpdate;
import io.gpuq.reported.ReadingState;
import io.gpuq.reported.ReportedPoint;
import io.gpuq.reported.ReportingJob;
import io.gpuq.reported.SweepObjective;
import jakarta.persistence.EntityManager;
import jakarta.persistence.PersistenceContext;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.hibernate.Session;

/** {@link MetricsRows} in the transaction's own connection. */
class MetricsRowsImpl implements MetricsRows {

  /** What the metrics reader reads of a job that reports, and of its sweep. */
  private static final String REPORTING_COLUMNS =
      "select j.id, j.attempt, j.metrics_attempt, j.state, j.metrics_offset, j.metrics_last_step,"
          + " j.metrics_skipping, j.metrics_skipped_lines, j.metrics_points, j.metrics_stride,"
          + " j.metrics_skipped_values, j.metrics_end_offset, j.metrics_cut, j.metrics_latest,"
          + " j.metric_value, j.metric_best,"
          + " j.sweep_id, s.metric_name, s.metric_goal, s.early_stopping"
          + " from jobs j left join sweeps s on s.id = j.sweep_id";

  /** The jobs of a node that report, a page after an id. */
  private static final String REPORTING_ON =
      REPORTING_COLUMNS
          + " where j.node = ? and j.id > ? and j.metrics_done = false and j.state <> 'QUEUED'"
          + " order by j.id";

  /** One job, if it reports. */
  private static final String REPORTING =
      REPORTING_COLUMNS + " where j.id = ? and j.metrics_done = false and j.state <> 'QUEUED'";

  private static final String LAST_SEQ =
      "select coalesce(max(seq), -1) from job_metrics where job_id = ?";

  private static final String INSERT_POINT =
      "insert into job_metrics (job_id, seq, attempt, step, metric_values, read_at, point_index)"
          + " values (?, ?, ?, ?, ?, ?, ?)";

  // Thinning to a doubled stride: the attempt's points past the first that are off the stride.
  private static final String THIN =
      "delete from job_metrics where job_id = ? and attempt = ? and point_index >= ?"
          + " and mod(point_index - ?, ?) <> 0";

  private static final String UPDATE_JOB =
      "update jobs set metrics_offset = ?, metrics_last_step = ?, metrics_skipping = ?,"
          + " metrics_skipped_lines = ?, metrics_latest = ?, metrics_step = ?, metric_value = ?,"
          + " metric_best = ?, metrics_done = ?, metrics_attempt = ?, metrics_points = ?,"
          + " metrics_stride = ?, metrics_skipped_values = ?, metrics_end_offset = ?,"
          + " metrics_cut = ?,"
          // A trial's view names its sweep's metric; copied here, where metrics are written, so
          // that reading a job never reads the sweeps table.
          + " metric_name = (select s.metric_name from sweeps s where s.id = jobs.sweep_id)"
          + " where id = ? and attempt = ?";

  private static final String POINTS =
      "select attempt, step, metric_values, read_at from job_metrics where job_id = ? order by seq";

  private static final String PAGE =
      "select seq, attempt, step, metric_values, read_at from job_metrics"
          + " where job_id = ? and seq > ? order by seq";

  // What the caps left out, of the attempt the columns describe (none once a new one has begun).
  private static final String LEFT_OUT =
      "select attempt, metrics_attempt, metrics_skipped_lines, metrics_skipped_values,"
          + " metrics_cut from jobs where id = ?";

  /**
   * The last attempt before {@code j.attempt} that did not end {@code PREEMPTED}, or 0: the
   * attempts after it are one run, resumed from its checkpoints (issue 35), whose metrics are one
   * series.
   */
  private static final String RUN_BEFORE =
      "(select coalesce(max(a.attempt), 0) from job_attempts a where a.job_id = j.id"
          + " and a.attempt < j.attempt and (a.outcome is null or a.outcome <> 'PREEMPTED'))";

  // A resumed attempt that reports a step again replaces what the run's earlier attempts reported
  // from that step on (issue 35): one value per step for the pruners and the best trial.
  private static final String REPLACED_BY_RESUME =
      "delete from job_metrics where job_id = ? and attempt < ? and step >= ? and attempt > "
          + RUN_BEFORE.replace("j.id", "?").replace("j.attempt", "?");

  private static final String SWEEP_SERIES =
      "select j.id, j.trial, j.state, j.node, m.step, m.metric_values, m.read_at"
          + " from jobs j left join job_metrics m on m.job_id = j.id and m.attempt <= j.attempt"
          + " and m.attempt > "
          + RUN_BEFORE
          + " where j.sweep_id = ? order by j.trial, m.seq";

  /** What a point costs an answer besides its values: attempt, step and time, as JSON. */
  private static final int POINT_OVERHEAD_BYTES = 96;

  @PersistenceContext private EntityManager entityManager;

  private <T> T work(org.hibernate.jdbc.ReturningWork<T> work) {
    return entityManager.unwrap(Session.class).doReturningWork(work);
  }

  @Override
  public List<ReportingJob> findReportingOn(String node, String afterId, int limit) {
    return work(
        connection -> {
          try (PreparedStatement select = connection.prepareStatement(REPORTING_ON)) {
            select.setString(1, node);
            select.setString(2, afterId == null ? "" : afterId);
            select.setMaxRows(limit);
            List<ReportingJob> reporting = new ArrayList<>();
            try (ResultSet row = select.executeQuery()) {
              while (row.next()) {
                reporting.add(reportingJob(row));
              }
            }
            return reporting;
          }
        });
  }

  @Override
  public Optional<ReportingJob> findReporting(String jobId) {
    return work(
        connection -> {
          try (PreparedStatement select = connection.prepareStatement(REPORTING)) {
            select.setString(1, jobId);
            try (ResultSet row = select.executeQuery()) {
              return row.next() ? Optional.of(reportingJob(row)) : Optional.empty();
            }
          }
        });
  }

  private static ReportingJob reportingJob(ResultSet row) throws SQLException {
    String sweepId = row.getString("sweep_id");
    int attempt = row.getInt("attempt");
    // The columns describe an earlier attempt, whose file is not this one's.
    boolean newAttempt = row.getInt("metrics_attempt") != attempt;
    return new ReportingJob(
        row.getString("id"),
        attempt,
        newAttempt,
        JobState.valueOf(row.getString("state")).isTerminal(),
        newAttempt
            ? ReadingState.START
            : new ReadingState(
                row.getLong("metrics_offset"),
                row.getLong("metrics_last_step"),
                row.getBoolean("metrics_skipping"),
                row.getLong("metrics_skipped_lines"),
                row.getLong("metrics_points"),
                row.getLong("metrics_stride"),
                row.getLong("metrics_skipped_values"),
                row.getLong("metrics_end_offset"),
                row.getBoolean("metrics_cut")),
        newAttempt ? Map.of() : MetricsJson.readValues(row.getString("metrics_latest")),
        newAttempt ? null : row.getObject("metric_value", Double.class),
        newAttempt ? null : row.getObject("metric_best", Double.class),
        sweepId == null
            ? null
            : new SweepObjective(
                sweepId,
                row.getString("metric_name"),
                row.getString("metric_goal"),
                row.getString("early_stopping")));
  }

  @Override
  public void insertMetrics(MetricsUpdate update) {
    work(
        connection -> {
          if (updateJob(connection, update) == 1) {
            if (update.thin()) {
              thin(connection, update);
            }
            if (!update.points().isEmpty()) {
              if (update.attempt() > 1) {
                replaceResumedSteps(connection, update);
              }
              insertPoints(connection, update);
            }
          }
          return null;
        });
  }

  /** Writes where reading stands on the job's row, unless the job has left the read attempt. */
  private static int updateJob(Connection connection, MetricsUpdate update) throws SQLException {
    try (PreparedStatement job = connection.prepareStatement(UPDATE_JOB)) {
      ReadingState next = update.next();
      job.setLong(1, next.offset());
      job.setLong(2, next.lastStep());
      job.setBoolean(3, next.skippingLine());
      job.setLong(4, next.skippedLines());
      job.setString(5, update.latest().isEmpty() ? null : MetricsJson.writeValues(update.latest()));
      setNullable(job, 6, update.step(), Types.BIGINT);
      setNullable(job, 7, MetricsJson.finiteOrNull(update.metricValue()), Types.DOUBLE);
      setNullable(job, 8, MetricsJson.finiteOrNull(update.metricBest()), Types.DOUBLE);
      job.setBoolean(9, update.done());
      job.setInt(10, update.attempt());
      job.setLong(11, next.points());
      job.setLong(12, next.stride());
      job.setLong(13, next.skippedValues());
      job.setLong(14, next.endOffset());
      job.setBoolean(15, next.cut());
      job.setString(16, update.jobId());
      job.setInt(17, update.attempt());
      return job.executeUpdate();
    }
  }

  private static void thin(Connection connection, MetricsUpdate update) throws SQLException {
    try (PreparedStatement delete = connection.prepareStatement(THIN)) {
      delete.setString(1, update.jobId());
      delete.setInt(2, update.attempt());
      delete.setLong(3, MetricsCaps.FIRST_POINTS);
      delete.setLong(4, MetricsCaps.FIRST_POINTS);
      delete.setLong(5, update.next().stride());
      delete.executeUpdate();
    }
  }

  private static void replaceResumedSteps(Connection connection, MetricsUpdate update)
      throws SQLException {
    long from = Long.MAX_VALUE;
    for (ReportedPoint point : update.points()) {
      from = Math.min(from, point.step());
    }
    try (PreparedStatement delete = connection.prepareStatement(REPLACED_BY_RESUME)) {
      delete.setString(1, update.jobId());
      delete.setInt(2, update.attempt());
      delete.setLong(3, from);
      delete.setString(4, update.jobId());
      delete.setInt(5, update.attempt());
      delete.executeUpdate();
    }
  }

  private static void insertPoints(Connection connection, MetricsUpdate update)
      throws SQLException {
    String jobId = update.jobId();
    int seq;
    try (PreparedStatement last = connection.prepareStatement(LAST_SEQ)) {
      last.setString(1, jobId);
      try (ResultSet row = last.executeQuery()) {
        row.next();
        seq = row.getInt(1) + 1;
      }
    }
    try (PreparedStatement insert = connection.prepareStatement(INSERT_POINT)) {
      for (int i = 0; i < update.points().size(); i++) {
        ReportedPoint point = update.points().get(i);
        insert.setString(1, jobId);
        insert.setInt(2, seq++);
        insert.setInt(3, update.attempt());
        insert.setLong(4, point.step());
        insert.setString(5, MetricsJson.writeValues(point.values()));
        insert.setObject(6, utc(point.at()));
        setNullable(insert, 7, update.indexOf(i), Types.BIGINT);
        insert.addBatch();
      }
      insert.executeBatch();
    }
  }

  private static void setNullable(PreparedStatement statement, int index, Object value, int type)
      throws SQLException {
    if (value == null) {
      statement.setNull(index, type);
    } else {
      statement.setObject(index, value);
    }
  }

  @Override
  public List<ReportedPoint> findMetrics(String jobId, int limit) {
    return work(
        connection -> {
          try (PreparedStatement select = connection.prepareStatement(POINTS)) {
            select.setString(1, jobId);
            select.setMaxRows(limit);
            List<ReportedPoint> points = new ArrayList<>();
            try (ResultSet row = select.executeQuery()) {
              while (row.next()) {
                points.add(
                    new ReportedPoint(
                        row.getInt(1),
                        row.getLong(2),
                        MetricsJson.readValues(row.getString(3)),
                        instant(row, 4)));
              }
            }
            return points;
          }
        });
  }

  @Override
  public MetricsPage findMetricsPage(String jobId, long afterSeq, int limit, long maxBytes) {
    return work(
        connection -> {
          List<ReportedPoint> points = new ArrayList<>();
          Long nextAfter = null;
          try (PreparedStatement select = connection.prepareStatement(PAGE)) {
            select.setString(1, jobId);
            select.setLong(2, afterSeq);
            // One row more than the page tells whether another page follows.
            select.setMaxRows(limit + 1);
            select.setFetchSize(Math.min(limit + 1, 500));
            long bytes = 0;
            long lastSeq = afterSeq;
            try (ResultSet row = select.executeQuery()) {
              while (row.next()) {
                String values = row.getString(4);
                bytes += values.length() + POINT_OVERHEAD_BYTES;
                if (points.size() == limit || (!points.isEmpty() && bytes > maxBytes)) {
                  nextAfter = lastSeq;
                  break;
                }
                lastSeq = row.getLong(1);
                points.add(
                    new ReportedPoint(
                        row.getInt(2),
                        row.getLong(3),
                        MetricsJson.readValues(values),
                        instant(row, 5)));
              }
            }
          }
          try (PreparedStatement select = connection.prepareStatement(LEFT_OUT)) {
            select.setString(1, jobId);
            try (ResultSet row = select.executeQuery()) {
              if (!row.next() || row.getInt(1) != row.getInt(2)) {
                return new MetricsPage(points, nextAfter, 0, 0, false);
              }
              return new MetricsPage(
                  points, nextAfter, row.getLong(3), row.getLong(4), row.getBoolean(5));
            }
          }
        });
  }

  @Override
  public List<TrialSeries> findSweepSeries(String sweepId, String metric) {
    return work(
        connection -> {
          try (PreparedStatement select = connection.prepareStatement(SWEEP_SERIES)) {
            select.setString(1, sweepId);
            List<TrialSeries> trials = new ArrayList<>();
            try (ResultSet row = select.executeQuery()) {
              String jobId = null;
              int trial = 0;
              JobState state = null;
              String node = null;
              List<TrialSeries.Value> values = new ArrayList<>();
              while (row.next()) {
                String id = row.getString(1);
                if (!id.equals(jobId)) {
                  if (jobId != null) {
                    trials.add(new TrialSeries(jobId, trial, state, node, values));
                  }
                  jobId = id;
                  trial = row.getInt(2);
                  state = JobState.valueOf(row.getString(3));
                  node = row.getString(4);
                  values = new ArrayList<>();
                }
                String json = row.getString(6);
                if (json != null) {
                  java.util.OptionalDouble value = MetricsJson.readValue(json, metric);
                  if (value.isPresent()) {
                    values.add(
                        new TrialSeries.Value(
                            row.getLong(5), value.getAsDouble(), instant(row, 7)));
                  }
                }
              }
              if (jobId != null) {
                trials.add(new TrialSeries(jobId, trial, state, node, values));
              }
            }
            return trials;
          }
        });
  }

  private static OffsetDateTime utc(Instant instant) {
    return instant.atOffset(ZoneOffset.UTC);
  }

  private static Instant instant(ResultSet row, int column) throws SQLException {
    return row.getObject(column, OffsetDateTime.class).toInstant();
  }
}
