package io.gpuq.storage;

import io.gpuq.job.JobPlacement;
import io.gpuq.job.JobState;
import io.gpuq.job.UsageReport;
import io.gpuq.job.UsageSource;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.time.LocalDate;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Collection;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
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

  private static final String ROLLED_UP =
      "select usage_day, owner, succeeded, failed, cancelled, pruned, gpu_hours, gpu_memory_gib_hours,"
          + " measured_gpu_memory_gib_hours, core_hours, memory_gib_hours, wait_max_seconds"
          + " from usage_daily where usage_day >= :from and usage_day < :to";

  private static final String ATTEMPTS_OF =
      "select j.owner, cast(null as varchar(200)) as grp, a.started_at, a.finished_at, j.gpus,"
          + " j.gpu_memory_bytes, j.gpu_fraction, a.budget_bytes, a.peak_gpu_memory_bytes,"
          + " a.placement, j.cpus, j.memory_bytes from job_attempts a join jobs j on j.id ="
          + " a.job_id where a.finished_at is not null and j.id in (:ids)";

  private static final String JOBS_OF =
      "select j.owner, cast(null as varchar(200)) as grp, j.state, j.finished_at, j.created_at,"
          + " (select min(a.started_at) from job_attempts a where a.job_id = j.id) as first_start"
          + " from jobs j where j.id in (:ids)";

  private static final String ADD_TO_DAY =
      "update usage_daily set succeeded = succeeded + :succeeded, failed = failed + :failed,"
          + " cancelled = cancelled + :cancelled, pruned = pruned + :pruned,"
          + " gpu_hours = gpu_hours + :gpuHours,"
          + " gpu_memory_gib_hours = gpu_memory_gib_hours + :gpuMemory,"
          + " measured_gpu_memory_gib_hours = measured_gpu_memory_gib_hours + :measured,"
          + " core_hours = core_hours + :coreHours, memory_gib_hours = memory_gib_hours + :memory"
          + " where usage_day = :day and owner = :owner";

  private static final String LONGER_WAIT =
      "update usage_daily set wait_max_seconds = :waitMax where usage_day = :day and owner = :owner"
          + " and (wait_max_seconds is null or wait_max_seconds < :waitMax)";

  private static final String NEW_DAY =
      "insert into usage_daily (usage_day, owner, succeeded, failed, cancelled, pruned, gpu_hours,"
          + " gpu_memory_gib_hours, measured_gpu_memory_gib_hours, core_hours, memory_gib_hours,"
          + " wait_max_seconds) values (:day, :owner, :succeeded, :failed, :cancelled, :pruned,"
          + " :gpuHours, :gpuMemory, :measured, :coreHours, :memory, :waitMax)";

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

  @Override
  public List<RolledUpDay> rolledUp(LocalDate fromDay, LocalDate toDay) {
    return jdbc.sql(ROLLED_UP)
        .param("from", fromDay)
        .param("to", toDay)
        .query(
            (row, n) -> {
              Map<JobState, Long> jobs = new EnumMap<>(JobState.class);
              jobs.put(JobState.SUCCEEDED, row.getLong("succeeded"));
              jobs.put(JobState.FAILED, row.getLong("failed"));
              jobs.put(JobState.CANCELLED, row.getLong("cancelled"));
              jobs.put(JobState.PRUNED, row.getLong("pruned"));
              double waitMax = row.getDouble("wait_max_seconds");
              return new RolledUpDay(
                  row.getObject("usage_day", LocalDate.class),
                  row.getString("owner"),
                  jobs,
                  row.getDouble("gpu_hours"),
                  row.getDouble("gpu_memory_gib_hours"),
                  row.getDouble("measured_gpu_memory_gib_hours"),
                  row.getDouble("core_hours"),
                  row.getDouble("memory_gib_hours"),
                  row.wasNull() ? null : waitMax);
            })
        .list();
  }

  /**
   * Adds these jobs' figures to their days (retention, before it deletes them, in its transaction):
   * each attempt to the day it ended, each job to the day it finished.
   */
  void rollUp(Collection<String> ids) {
    if (ids.isEmpty()) {
      return;
    }
    List<EndedAttempt> attempts =
        jdbc.sql(ATTEMPTS_OF).param("ids", List.copyOf(ids)).query((row, n) -> attempt(row)).list();
    List<FinishedJob> jobs =
        jdbc.sql(JOBS_OF)
            .param("ids", List.copyOf(ids))
            .query(
                (row, n) -> {
                  Instant created = instant(row, "created_at");
                  Instant started = instant(row, "first_start");
                  return new FinishedJob(
                      row.getString("owner"),
                      null,
                      JobState.valueOf(row.getString("state")),
                      instant(row, "finished_at"),
                      started == null ? null : started.toEpochMilli() - created.toEpochMilli());
                })
            .list();
    Map<String, List<EndedAttempt>> attemptsByKey = new TreeMap<>();
    Map<String, List<FinishedJob>> jobsByKey = new TreeMap<>();
    for (EndedAttempt a : attempts) {
      attemptsByKey.computeIfAbsent(key(a.finishedAt(), a.owner()), k -> new ArrayList<>()).add(a);
    }
    for (FinishedJob j : jobs) {
      jobsByKey.computeIfAbsent(key(j.finishedAt(), j.owner()), k -> new ArrayList<>()).add(j);
    }
    java.util.Set<String> keys = new java.util.TreeSet<>(attemptsByKey.keySet());
    keys.addAll(jobsByKey.keySet());
    for (String key : keys) {
      int at = key.indexOf(' ');
      LocalDate day = LocalDate.parse(key.substring(0, at));
      String owner = key.substring(at + 1);
      Instant start = day.atStartOfDay(ZoneOffset.UTC).toInstant();
      UsageReport.Group sums =
          UsageReport.of(
                  start,
                  start.plus(java.time.Duration.ofDays(1)),
                  UsageReport.By.OWNER,
                  "owner",
                  attemptsByKey.getOrDefault(key, List.of()),
                  jobsByKey.getOrDefault(key, List.of()))
              .total();
      Map<String, Object> values = new java.util.HashMap<>();
      values.put("day", day);
      values.put("owner", owner);
      values.put("succeeded", sums.jobs().get(JobState.SUCCEEDED));
      values.put("failed", sums.jobs().get(JobState.FAILED));
      values.put("cancelled", sums.jobs().get(JobState.CANCELLED));
      values.put("pruned", sums.jobs().get(JobState.PRUNED));
      values.put("gpuHours", sums.gpuHours());
      values.put("gpuMemory", sums.gpuMemoryGiBHours());
      values.put("measured", sums.measuredGpuMemoryGiBHours());
      values.put("coreHours", sums.coreHours());
      values.put("memory", sums.memoryGiBHours());
      values.put("waitMax", sums.waitSeconds().max());
      Double waitMax = sums.waitSeconds().max();
      values.remove("waitMax");
      if (jdbc.sql(ADD_TO_DAY).params(values).update() == 0) {
        values.put("waitMax", waitMax);
        jdbc.sql(NEW_DAY).params(values).update();
      } else if (waitMax != null) {
        values.put("waitMax", waitMax);
        jdbc.sql(LONGER_WAIT).params(values).update();
      }
    }
  }

  private static String key(Instant at, String owner) {
    return at.atOffset(ZoneOffset.UTC).toLocalDate() + " " + owner;
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
