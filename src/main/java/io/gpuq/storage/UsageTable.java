package io.gpuq.storage;

import io.gpuq.job.JobPlacement;
import io.gpuq.job.JobState;
import io.gpuq.job.UsageSource;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.List;
import javax.sql.DataSource;
import org.springframework.jdbc.core.simple.JdbcClient;

/**
 * The SQL of the usage report (issue 37): ended attempts with their job's holdings, and finished
 * jobs with their first start, in a window; grouped by a label when asked ({@code job_labels}).
 */
public final class UsageTable implements UsageSource {

  private static final String ATTEMPTS =
      "select j.owner, %s as grp, a.started_at, a.finished_at, j.gpus, j.gpu_memory_bytes,"
          + " j.gpu_fraction, a.budget_bytes, a.peak_gpu_memory_bytes, a.placement, j.cpus,"
          + " j.memory_bytes from job_attempts a join jobs j on j.id = a.job_id%s"
          + " where a.finished_at >= :from and a.finished_at < :to";

  private static final String JOBS =
      "select j.owner, %s as grp, j.state, j.finished_at, j.created_at,"
          + " (select min(a.started_at) from job_attempts a where a.job_id = j.id) as first_start"
          + " from jobs j%s where j.finished_at >= :from and j.finished_at < :to"
          + " and j.state in ('SUCCEEDED', 'FAILED', 'CANCELLED', 'PRUNED')";

  private static final String LABEL_JOIN =
      " left join job_labels l on l.job_id = j.id and l.label_key = :key";

  private static final JsonColumns.Placement PLACEMENT = new JsonColumns.Placement();

  private final JdbcClient jdbc;

  public UsageTable(DataSource dataSource) {
    this.jdbc = JdbcClient.create(dataSource);
  }

  @Override
  public List<EndedAttempt> attemptsEnded(Instant from, Instant to, String labelKey) {
    var statement =
        jdbc.sql(grouped(ATTEMPTS, labelKey)).param("from", utc(from)).param("to", utc(to));
    if (labelKey != null) {
      statement = statement.param("key", labelKey);
    }
    return statement.query((row, n) -> attempt(row)).list();
  }

  @Override
  public List<FinishedJob> jobsFinished(Instant from, Instant to, String labelKey) {
    var statement = jdbc.sql(grouped(JOBS, labelKey)).param("from", utc(from)).param("to", utc(to));
    if (labelKey != null) {
      statement = statement.param("key", labelKey);
    }
    return statement
        .query(
            (row, n) -> {
              Instant created = instant(row, "created_at");
              Instant started = instant(row, "first_start");
              return new FinishedJob(
                  row.getString("owner"),
                  row.getString("grp"),
                  JobState.valueOf(row.getString("state")),
                  instant(row, "finished_at"),
                  started == null ? null : started.toEpochMilli() - created.toEpochMilli());
            })
        .list();
  }

  private static String grouped(String sql, String labelKey) {
    return labelKey == null
        ? sql.formatted("cast(null as varchar(200))", "")
        : sql.formatted("l.label_value", LABEL_JOIN);
  }

  private static EndedAttempt attempt(ResultSet row) throws SQLException {
    int gpus = row.getInt("gpus");
    long bytes = row.getLong("gpu_memory_bytes");
    boolean askedBytes = !row.wasNull();
    double fraction = row.getDouble("gpu_fraction");
    boolean askedFraction = !row.wasNull();
    long budget = row.getLong("budget_bytes");
    long peak = row.getLong("peak_gpu_memory_bytes");
    long memory = row.getLong("memory_bytes");
    JobPlacement placement = PLACEMENT.convertToEntityAttribute(row.getString("placement"));
    double share = 1.0;
    if (gpus > 0 && (askedBytes || askedFraction)) {
      // The share of a GPU its budget held: of the placed GPU's memory where it is known.
      long total =
          placement == null || placement.gpus().isEmpty()
              ? 0
              : placement.gpus().get(0).totalBytes();
      share = total > 0 ? Math.min(1.0, (double) budget / total) : askedFraction ? fraction : 1.0;
    }
    return new EndedAttempt(
        row.getString("owner"),
        row.getString("grp"),
        instant(row, "started_at"),
        instant(row, "finished_at"),
        gpus * share,
        gpus * budget,
        gpus * peak,
        JobRows.cpus(row.getBigDecimal("cpus")).number().doubleValue(),
        memory);
  }

  private static Instant instant(ResultSet row, String column) throws SQLException {
    OffsetDateTime at = row.getObject(column, OffsetDateTime.class);
    return at == null ? null : at.toInstant();
  }

  private static OffsetDateTime utc(Instant at) {
    return at.atOffset(ZoneOffset.UTC);
  }
}
