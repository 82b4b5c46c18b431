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
import java.util.OptionalDouble;
import javax.sql.DataSource;
import org.springframework.jdbc.core.ResultSetExtractor;
import org.springframework.jdbc.core.RowMapper;
import org.springframework.jdbc.core.namedparam.MapSqlParameterSource;
import org.springframework.jdbc.core.namedparam.NamedParameterJdbcTemplate;
import org.springframework.jdbc.core.namedparam.SqlParameterSource;
import org.springframework.jdbc.core.simple.JdbcClient;

/**
 * The SQL of the table {@code job_metrics}, the points runs report, and of where reading them
 * stands: the job's {@code metrics_*} columns, which the entity only reads. Runs in the caller's
 * transaction ({@code JpaJobStore}'s: a {@link JdbcClient} over the data source joins it).
 */
final class JobMetricsTable {

  /** What the metrics reader reads of a job that reports, and of its sweep. */
  private static final String REPORTING_COLUMNS =
      "select j.id, j.attempt, j.metrics_attempt, j.state, j.started_at, j.metrics_offset,"
          + " j.metrics_last_step,"
          + " j.metrics_skipping, j.metrics_skipped_lines, j.metrics_points, j.metrics_stride,"
          + " j.metrics_skipped_values, j.metrics_end_offset, j.metrics_cut, j.metrics_latest,"
          + " j.metric_value, j.metric_best,"
          + " j.sweep_id, s.metric_name, s.metric_goal, s.early_stopping"
          + " from jobs j left join sweeps s on s.id = j.sweep_id";

  /** The jobs of a node that report, a page after an id. */
  private static final String REPORTING_ON =
      REPORTING_COLUMNS
          + " where j.node = :node and j.id > :afterId and j.metrics_done = false"
          + " and j.state <> 'QUEUED' order by j.id";

  /** One job, if it reports. */
  private static final String REPORTING =
      REPORTING_COLUMNS + " where j.id = :jobId and j.metrics_done = false and j.state <> 'QUEUED'";

  private static final String LAST_SEQ =
      "select coalesce(max(seq), -1) from job_metrics where job_id = :jobId";

  private static final String INSERT_POINT =
      "insert into job_metrics (job_id, seq, attempt, step, metric_values, read_at, point_index)"
          + " values (:jobId, :seq, :attempt, :step, :values, :readAt, :pointIndex)";

  // Thinning to a doubled stride: the attempt's points past the first that are off the stride.
  private static final String THIN =
      "delete from job_metrics where job_id = :jobId and attempt = :attempt"
          + " and point_index >= :first and mod(point_index - :first, :stride) <> 0";

  private static final String UPDATE_JOB =
      "update jobs set metrics_offset = :offset, metrics_last_step = :lastStep,"
          + " metrics_skipping = :skipping, metrics_skipped_lines = :skippedLines,"
          + " metrics_latest = :latest, metrics_step = :step, metric_value = :value,"
          + " metric_best = :best, metrics_done = :done, metrics_attempt = :attempt,"
          + " metrics_points = :points, metrics_stride = :stride,"
          + " metrics_skipped_values = :skippedValues, metrics_end_offset = :endOffset,"
          + " metrics_cut = :cut,"
          // A trial's view names its sweep's metric; copied here, where metrics are written, so
          // that reading a job never reads the sweeps table.
          + " metric_name = (select s.metric_name from sweeps s where s.id = jobs.sweep_id)"
          + " where id = :jobId and attempt = :attempt";

  private static final String POINTS =
      "select attempt, step, metric_values, read_at from job_metrics where job_id = :jobId"
          + " order by seq";

  private static final String PAGE =
      "select seq, attempt, step, metric_values, read_at from job_metrics"
          + " where job_id = :jobId and seq > :afterSeq order by seq";

  // What the caps left out, of the attempt the columns describe (none once a new one has begun).
  private static final String LEFT_OUT =
      "select attempt, metrics_attempt, metrics_skipped_lines, metrics_skipped_values,"
          + " metrics_cut from jobs where id = :jobId";

  // A resumed attempt that reports a step again replaces what the run's earlier attempts reported
  // from that step on (issue 35): one value per step for the pruners and the best trial. The run
  // began after the last attempt before this one that did not end PREEMPTED (or 0): the attempts
  // after it are one run, resumed from its checkpoints, whose metrics are one series.
  private static final String REPLACED_BY_RESUME =
      "delete from job_metrics where job_id = :jobId and attempt < :attempt and step >= :fromStep"
          + " and attempt > (select coalesce(max(a.attempt), 0) from job_attempts a"
          + " where a.job_id = :jobId and a.attempt < :attempt"
          + " and (a.outcome is null or a.outcome <> 'PREEMPTED'))";

  // Each trial's points of its current run (as REPLACED_BY_RESUME defines it).
  private static final String SWEEP_SERIES =
      "select j.id, j.trial, j.state, j.node, m.step, m.metric_values, m.read_at"
          + " from jobs j left join job_metrics m on m.job_id = j.id and m.attempt <= j.attempt"
          + " and m.attempt > (select coalesce(max(a.attempt), 0) from job_attempts a"
          + " where a.job_id = j.id and a.attempt < j.attempt"
          + " and (a.outcome is null or a.outcome <> 'PREEMPTED'))"
          + " where j.sweep_id = :sweepId order by j.trial, m.seq";

  /** What a point costs an answer besides its values: attempt, step and time, as JSON. */
  private static final int POINT_OVERHEAD_BYTES = 96;

  private final JdbcClient sql;

  /** For the points' insert, one batch (which {@link JdbcClient} does not write). */
  private final NamedParameterJdbcTemplate batches;

  JobMetricsTable(DataSource dataSource) {
    this.batches = new NamedParameterJdbcTemplate(dataSource);
    this.sql = JdbcClient.create(batches);
  }

  List<ReportingJob> reportingOn(String node, String afterId, int limit) {
    return sql.sql(REPORTING_ON)
        .withMaxRows(limit)
        .param("node", node)
        .param("afterId", afterId == null ? "" : afterId)
        .query(REPORTING_JOB)
        .list();
  }

  Optional<ReportingJob> reporting(String jobId) {
    return sql.sql(REPORTING).param("jobId", jobId).query(REPORTING_JOB).optional();
  }

  private static final RowMapper<ReportingJob> REPORTING_JOB =
      (row, n) -> {
        String sweepId = row.getString("sweep_id");
        int attempt = row.getInt("attempt");
        // The columns describe an earlier attempt, whose file is not this one's.
        boolean newAttempt = row.getInt("metrics_attempt") != attempt;
        return new ReportingJob(
            row.getString("id"),
            attempt,
            newAttempt,
            JobState.valueOf(row.getString("state")).isTerminal(),
            Optional.ofNullable(row.getObject("started_at", OffsetDateTime.class))
                .map(OffsetDateTime::toInstant)
                .orElse(null),
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
      };

  /**
   * Writes where reading stands on the job's row, unless the job has left the read attempt; then
   * the points, thinned and replacing a resumed run's repeated steps as the update says.
   */
  void insert(MetricsUpdate update) {
    if (updateJob(update) != 1) {
      return;
    }
    if (update.thin()) {
      sql.sql(THIN)
          .param("jobId", update.jobId())
          .param("attempt", update.attempt())
          .param("first", (long) MetricsCaps.FIRST_POINTS)
          .param("stride", update.next().stride())
          .update();
    }
    if (!update.points().isEmpty()) {
      if (update.attempt() > 1) {
        replaceResumedSteps(update);
      }
      insertPoints(update);
    }
  }

  private int updateJob(MetricsUpdate update) {
    ReadingState next = update.next();
    return sql.sql(UPDATE_JOB)
        .param("offset", next.offset())
        .param("lastStep", next.lastStep())
        .param("skipping", next.skippingLine())
        .param("skippedLines", next.skippedLines())
        .param(
            "latest",
            update.latest().isEmpty() ? null : MetricsJson.writeValues(update.latest()),
            Types.VARCHAR)
        .param("step", update.step(), Types.BIGINT)
        .param("value", MetricsJson.finiteOrNull(update.metricValue()), Types.DOUBLE)
        .param("best", MetricsJson.finiteOrNull(update.metricBest()), Types.DOUBLE)
        .param("done", update.done())
        .param("attempt", update.attempt())
        .param("points", next.points())
        .param("stride", next.stride())
        .param("skippedValues", next.skippedValues())
        .param("endOffset", next.endOffset())
        .param("cut", next.cut())
        .param("jobId", update.jobId())
        .update();
  }

  private void replaceResumedSteps(MetricsUpdate update) {
    long from = Long.MAX_VALUE;
    for (ReportedPoint point : update.points()) {
      from = Math.min(from, point.step());
    }
    sql.sql(REPLACED_BY_RESUME)
        .param("jobId", update.jobId())
        .param("attempt", update.attempt())
        .param("fromStep", from)
        .update();
  }

  private void insertPoints(MetricsUpdate update) {
    String jobId = update.jobId();
    int seq = sql.sql(LAST_SEQ).param("jobId", jobId).query(Integer.class).single() + 1;
    SqlParameterSource[] rows = new SqlParameterSource[update.points().size()];
    for (int i = 0; i < rows.length; i++) {
      ReportedPoint point = update.points().get(i);
      rows[i] =
          new MapSqlParameterSource()
              .addValue("jobId", jobId)
              .addValue("seq", seq++)
              .addValue("attempt", update.attempt())
              .addValue("step", point.step())
              .addValue("values", MetricsJson.writeValues(point.values()))
              .addValue("readAt", utc(point.at()))
              .addValue("pointIndex", update.indexOf(i), Types.BIGINT);
    }
    batches.batchUpdate(INSERT_POINT, rows);
  }

  List<ReportedPoint> points(String jobId, int limit) {
    return sql.sql(POINTS)
        .withMaxRows(limit)
        .param("jobId", jobId)
        .query(
            (row, n) ->
                new ReportedPoint(
                    row.getInt(1),
                    row.getLong(2),
                    MetricsJson.readValues(row.getString(3)),
                    instant(row, 4)))
        .list();
  }

  MetricsPage page(String jobId, long afterSeq, int limit, long maxBytes) {
    List<ReportedPoint> points = new ArrayList<>();
    // Empty when no page follows (JdbcClient takes no null from an extractor).
    Optional<Long> nextAfter =
        sql.sql(PAGE)
            // One row more than the page tells whether another page follows.
            .withMaxRows(limit + 1)
            .withFetchSize(Math.min(limit + 1, 500))
            .param("jobId", jobId)
            .param("afterSeq", afterSeq)
            .query(
                (ResultSetExtractor<Optional<Long>>)
                    row -> {
                      long bytes = 0;
                      long lastSeq = afterSeq;
                      while (row.next()) {
                        String values = row.getString(4);
                        bytes += values.length() + POINT_OVERHEAD_BYTES;
                        if (points.size() == limit || (!points.isEmpty() && bytes > maxBytes)) {
                          return Optional.of(lastSeq);
                        }
                        lastSeq = row.getLong(1);
                        points.add(
                            new ReportedPoint(
                                row.getInt(2),
                                row.getLong(3),
                                MetricsJson.readValues(values),
                                instant(row, 5)));
                      }
                      return Optional.empty();
                    });
    return sql.sql(LEFT_OUT)
        .param("jobId", jobId)
        .query(
            (ResultSetExtractor<MetricsPage>)
                row ->
                    !row.next() || row.getInt(1) != row.getInt(2)
                        ? new MetricsPage(points, nextAfter.orElse(null), 0, 0, false)
                        : new MetricsPage(
                            points,
                            nextAfter.orElse(null),
                            row.getLong(3),
                            row.getLong(4),
                            row.getBoolean(5)));
  }

  List<TrialSeries> sweepSeries(String sweepId, String metric) {
    return sql.sql(SWEEP_SERIES)
        .param("sweepId", sweepId)
        .query(
            (ResultSetExtractor<List<TrialSeries>>)
                row -> {
                  List<TrialSeries> trials = new ArrayList<>();
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
                      OptionalDouble value = MetricsJson.readValue(json, metric);
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
                  return trials;
                });
  }

  private static OffsetDateTime utc(Instant instant) {
    return instant.atOffset(ZoneOffset.UTC);
  }

  private static Instant instant(ResultSet row, int column) throws SQLException {
    return row.getObject(column, OffsetDateTime.class).toInstant();
  }
}
