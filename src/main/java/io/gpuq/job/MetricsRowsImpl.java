package io.gpuq.job;

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

  private static final String REPORTING_ON =
      "select j.id, j.attempt, j.metrics_attempt, j.state, j.metrics_offset, j.metrics_last_step,"
          + " j.metrics_skipping, j.metrics_skipped_lines, j.metrics_latest, j.metric_value,"
          + " j.metric_best,"
          + " j.sweep_id, s.metric_name, s.metric_goal, s.early_stopping"
          + " from jobs j left join sweeps s on s.id = j.sweep_id"
          + " where j.node = ? and j.metrics_done = false and j.state <> 'QUEUED'"
          + " order by j.id";

  private static final String REPORTING =
      REPORTING_ON.replace("j.node = ? and", "j.id = ? and").replace(" order by j.id", "");

  private static final String LAST_SEQ =
      "select coalesce(max(seq), -1) from job_metrics where job_id = ?";

  private static final String INSERT_POINT =
      "insert into job_metrics (job_id, seq, attempt, step, metric_values, read_at)"
          + " values (?, ?, ?, ?, ?, ?)";

  private static final String UPDATE_JOB =
      "update jobs set metrics_offset = ?, metrics_last_step = ?, metrics_skipping = ?,"
          + " metrics_skipped_lines = ?, metrics_latest = ?, metrics_step = ?, metric_value = ?,"
          + " metric_best = ?, metrics_done = ?, metrics_attempt = ? where id = ? and attempt = ?";

  private static final String POINTS =
      "select attempt, step, metric_values, read_at from job_metrics where job_id = ? order by seq";

  private static final String SWEEP_SERIES =
      "select j.id, j.trial, j.state, j.node, m.step, m.metric_values, m.read_at"
          + " from jobs j left join job_metrics m on m.job_id = j.id and m.attempt = j.attempt"
          + " where j.sweep_id = ? order by j.trial, m.seq";

  @PersistenceContext private EntityManager entityManager;

  private <T> T work(org.hibernate.jdbc.ReturningWork<T> work) {
    return entityManager.unwrap(Session.class).doReturningWork(work);
  }

  @Override
  public List<ReportingJob> findReportingOn(String node) {
    return work(
        connection -> {
          try (PreparedStatement select = connection.prepareStatement(REPORTING_ON)) {
            select.setString(1, node);
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
            ? MetricsCursor.START
            : new MetricsCursor(
                row.getLong("metrics_offset"),
                row.getLong("metrics_last_step"),
                row.getBoolean("metrics_skipping"),
                row.getLong("metrics_skipped_lines")),
        newAttempt ? Map.of() : MetricsJson.readValues(row.getString("metrics_latest")),
        newAttempt ? null : row.getObject("metric_value", Double.class),
        newAttempt ? null : row.getObject("metric_best", Double.class),
        sweepId == null
            ? null
            : new SweepMetric(
                sweepId,
                row.getString("metric_name"),
                row.getString("metric_goal"),
                row.getString("early_stopping")));
  }

  @Override
  public void insertMetrics(MetricsUpdate update) {
    work(
        connection -> {
          if (updateJob(connection, update) == 1 && !update.points().isEmpty()) {
            insertPoints(connection, update);
          }
          return null;
        });
  }

  /** Writes where reading stands on the job's row, unless the job has left the read attempt. */
  private static int updateJob(Connection connection, MetricsUpdate update) throws SQLException {
    try (PreparedStatement job = connection.prepareStatement(UPDATE_JOB)) {
      MetricsCursor next = update.next();
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
      job.setString(11, update.jobId());
      job.setInt(12, update.attempt());
      return job.executeUpdate();
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
      for (ReportedPoint point : update.points()) {
        insert.setString(1, jobId);
        insert.setInt(2, seq++);
        insert.setInt(3, update.attempt());
        insert.setLong(4, point.step());
        insert.setString(5, MetricsJson.writeValues(point.values()));
        insert.setObject(6, utc(point.at()));
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
