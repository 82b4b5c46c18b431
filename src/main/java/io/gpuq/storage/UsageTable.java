package io.gpuq.storage;

import io.gpuq.job.JobPlacement;
import io.gpuq.job.JobState;
import io.gpuq.job.UsageReport;
import io.gpuq.job.UsageReport.EndedAttempt;
import io.gpuq.job.UsageSource;
import io.gpuq.job.WaitHistogram;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.time.LocalDate;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Collection;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import javax.sql.DataSource;
import org.springframework.jdbc.core.RowCallbackHandler;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.transaction.TransactionDefinition;
import org.springframework.transaction.support.TransactionCallback;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * The SQL of the usage report (issue 37). The database sums the window's attempts and counts its
 * jobs per group, with their waits' exact percentiles ({@code percentile_disc}, nearest rank), so
 * that a report reads a few rows per group whatever the window holds; {@code usage_daily} and
 * {@code usage_daily_labels} hold what retention deleted, per day and owner (and label).
 */
public final class UsageTable implements UsageSource {

  /**
   * An attempt's hours, from the database's clock columns: whole milliseconds, as gpuq shows them
   * (a job's page), so that the report equals what its jobs' pages add up to.
   */
  private static final String HOURS =
      "cast(floor((extract(epoch from a.finished_at) - extract(epoch from a.started_at)) * 1000)"
          + " as double precision) / 3600000";

  /** Whether an attempt held a share of its GPUs (a budget asked in bytes or as a fraction). */
  private static final String SHARED =
      "j.gpus > 0 and (j.gpu_memory_bytes is not null or j.gpu_fraction is not null)";

  /**
   * The window's attempts summed per owner, group, and what a GPU share is computed from (the
   * placement's GPU size is in its JSON, read in Java: a handful of distinct rows).
   */
  private static final String ATTEMPT_SUMS =
      "select owner, grp%3$s, gpus, shared_placement, shared_budget, shared_fraction,"
          + " sum(h) as hours,"
          + " sum(gpus * budget * h) as budget_byte_hours, sum(gpus * peak * h) as peak_byte_hours,"
          + " sum(cpus * h) as core_hours, sum(memory * h) as memory_byte_hours from ("
          + " select j.owner, %1$s as grp%4$s, j.gpus, case when "
          + SHARED
          + " then a.placement end as shared_placement, case when "
          + SHARED
          + " then a.budget_bytes end as shared_budget, case when "
          + SHARED
          + " then j.gpu_fraction end as shared_fraction, "
          + HOURS
          + " as h, a.budget_bytes as budget, coalesce(a.peak_gpu_memory_bytes, 0) as peak,"
          + " j.cpus, coalesce(j.memory_bytes, 0) as memory"
          + " from job_attempts a join jobs j on j.id = a.job_id%2$s"
          + " where a.finished_at >= :from and a.finished_at < :to"
          + ") x group by owner, grp%3$s, gpus, shared_placement, shared_budget, shared_fraction";

  /** A roll-up's grouping by label: every label of a job, each its own row. */
  private static final String EVERY_LABEL = " join job_labels l on l.job_id = j.id";

  private static final String LABEL_COLUMNS = ", l.label_key as lk, l.label_value as lv";

  /**
   * The ended states, as a condition H2 cannot make an index lookup of. H2 costs an equality or an
   * {@code in} list on a column of few values as if it kept 1 % of the rows, so with {@code j.state
   * in (...)} it read every ended job through an index on the state ({@code jobs_state_newest})
   * instead of the end time's range ({@code jobs_finished}), and computed each one's wait: at
   * 1,000,000 jobs a report whose live part held two minutes of ends did not answer within 30 s
   * (200,000 rows scanned for 122 at 200,000 jobs). Wrapped in a {@code case} it is a filter on the
   * range's rows, on H2 and PostgreSQL alike ({@code state || ''} is not enough: H2 simplifies it
   * back to the column).
   */
  private static final String ENDED =
      "(case when j.state in ('SUCCEEDED', 'FAILED', 'CANCELLED', 'PRUNED') then 1 else 0 end) = 1";

  /**
   * A submitter's own jobs, wrapped for the reason of {@link #ENDED} (H2 read all of the owner's
   * jobs through {@code jobs_owner_state_newest}).
   */
  private static final String OWNER_IS = " and (case when j.owner = :owner then 1 else 0 end) = 1";

  /**
   * What a roll-up adds per day, owner (and label, with {@link #EVERY_LABEL}), state and wait
   * bucket (-1: never started): the jobs that finished in a time range.
   */
  private static final String ROLL_JOBS =
      "select grp, owner%3$s, state, b, count(*) as n, max(w) as wmax from (select grp, owner%3$s,"
          + " state, w, case when w is null then -1 when w < 1 then 0 else least("
          + WaitHistogram.LAST
          + ", 1 + floor(4 * ln(w) / ln(2))) end as b from (select %1$s as grp, j.owner%4$s,"
          + " j.state, "
          + "%5$s"
          + " as w from jobs j%2$s where j.finished_at >= :from and j.finished_at < :to and "
          + ENDED
          + ") x) y"
          + " group by grp, owner%3$s, state, b";

  private static final String MARK = "select rolled_up_to from usage_mark where id = 1";

  private static final String LOCKED_MARK = MARK + " for update";

  private static final String SET_MARK = "update usage_mark set rolled_up_to = :to where id = 1";

  private static final String LOCKED_MARKS =
      "select rolled_up_to, counted_from from usage_mark where id = 1 for update";

  /**
   * How long before the mark the ends a chunk counted are written down, so that an end stored up to
   * this late is still found and counted ({@link #rollUpLate}); one stored later is not counted.
   */
  static final java.time.Duration COUNTED_FOR = java.time.Duration.ofHours(6);

  private static final String COUNT_ATTEMPTS =
      "insert into usage_counted (job_id, attempt, finished_at) select a.job_id, a.attempt,"
          + " a.finished_at from job_attempts a where a.finished_at >= :from"
          + " and a.finished_at < :to";

  private static final String COUNT_JOBS =
      "insert into usage_counted (job_id, attempt, finished_at) select j.id, 0, j.finished_at"
          + " from jobs j where j.finished_at >= :from and j.finished_at < :to and "
          + ENDED;

  /** At most this many late ends a run (more wait for the next). */
  private static final int LATE_BATCH = 1000;

  private static final String LATE_ATTEMPTS =
      "select a.job_id, a.attempt, a.finished_at from job_attempts a where a.finished_at >= :from"
          + " and a.finished_at < :to and not exists (select 1 from usage_counted c"
          + " where c.job_id = a.job_id and c.attempt = a.attempt) fetch first "
          + LATE_BATCH
          + " rows only";

  private static final String LATE_JOBS =
      "select j.id as job_id, 0 as attempt, j.finished_at from jobs j where j.finished_at >= :from"
          + " and j.finished_at < :to and "
          + ENDED
          + " and not exists (select 1 from usage_counted c where c.job_id = j.id"
          + " and c.attempt = 0) fetch first "
          + LATE_BATCH
          + " rows only";

  private static final String COUNTED =
      "insert into usage_counted (job_id, attempt, finished_at) values (:job, :attempt, :at)";

  private static final String FORGET_COUNTED =
      "delete from usage_counted where finished_at < :before";

  private static final String FIRST_ATTEMPT_END =
      "select min(finished_at) from job_attempts where finished_at >= :from";

  private static final String FIRST_JOB_END =
      "select min(finished_at) from jobs where finished_at >= :from";

  /** A finished job's wait from submission to its first start, in seconds (null: none). */
  private static final String WAIT =
      "cast(floor(extract(epoch from (select min(a.started_at) from job_attempts a where a.job_id ="
          + " j.id)) * 1000) - floor(extract(epoch from j.created_at) * 1000) as double precision)"
          + " / 1000";

  /** The window's finished jobs, one row each: its group, state and wait. */
  private static final String FINISHED =
      "select %1$s as grp, j.state, "
          + WAIT
          + " as w from jobs j%2$s where j.finished_at >= :from and j.finished_at < :to and "
          + ENDED
          + "%3$s";

  private static final String JOB_FIGURES =
      "sum(case when state = 'SUCCEEDED' then 1 else 0 end) as succeeded,"
          + " sum(case when state = 'FAILED' then 1 else 0 end) as failed,"
          + " sum(case when state = 'CANCELLED' then 1 else 0 end) as cancelled,"
          + " sum(case when state = 'PRUNED' then 1 else 0 end) as pruned,"
          + " percentile_disc(0.5) within group (order by w) as p50,"
          + " percentile_disc(0.95) within group (order by w) as p95, max(w) as wmax";

  private static final String JOBS_BY_GROUP =
      "select grp, " + JOB_FIGURES + " from (" + FINISHED + ") x group by grp";

  private static final String JOBS_IN_ALL = "select " + JOB_FIGURES + " from (" + FINISHED + ") x";

  /** The bucket of {@link WaitHistogram#bucket}. */
  private static final String BUCKET =
      "case when w < 1 then 0 else least("
          + WaitHistogram.LAST
          + ", 1 + floor(4 * ln(w) / ln(2))) end";

  private static final String BUCKETS_BY_GROUP =
      "select grp, b, count(*) as n from (select grp, "
          + BUCKET
          + " as b from ("
          + FINISHED
          + ") x where w is not null) y group by grp, b";

  private static final String BUCKETS_IN_ALL =
      "select b, count(*) as n from (select "
          + BUCKET
          + " as b from ("
          + FINISHED
          + ") x where w is not null) y group by b";

  private static final String LABEL_JOIN =
      " left join job_labels l on l.job_id = j.id and l.label_key = :key";

  private static final String FIGURES =
      "succeeded, failed, cancelled, pruned, gpu_hours, gpu_memory_gib_hours,"
          + " measured_gpu_memory_gib_hours, core_hours, memory_gib_hours, wait_max_seconds,"
          + " wait_histogram";

  private static final String ROLLED_UP =
      "select usage_day, owner, cast(null as varchar(256)) as label_value, "
          + FIGURES
          + " from usage_daily where usage_day >= :from and usage_day < :to";

  private static final String ROLLED_UP_LABELS =
      "select usage_day, owner, label_value, "
          + FIGURES
          + " from usage_daily_labels where label_key = :key and usage_day >= :from"
          + " and usage_day < :to";

  private static final String ATTEMPTS_OF =
      "select a.job_id, a.attempt, j.owner, a.started_at, a.finished_at, j.gpus, j.gpu_memory_bytes,"
          + " j.gpu_fraction, a.budget_bytes, a.peak_gpu_memory_bytes, a.placement, j.cpus,"
          + " j.memory_bytes from job_attempts a join jobs j on j.id = a.job_id"
          + " where a.finished_at is not null and j.id in (:ids)";

  private static final String JOBS_OF =
      "select j.id, j.owner, j.state, j.finished_at, j.created_at,"
          + " (select min(a.started_at) from job_attempts a where a.job_id = j.id) as first_start"
          + " from jobs j where j.id in (:ids)";

  private static final String LABELS_OF =
      "select job_id, label_key, label_value from job_labels where job_id in (:ids)";

  private static final String DAY_ROW =
      "select "
          + FIGURES
          + " from usage_daily where usage_day = :day and owner = :owner for update";

  private static final String LABEL_ROW =
      "select "
          + FIGURES
          + " from usage_daily_labels where usage_day = :day and owner = :owner"
          + " and label_key = :key and label_value = :value for update";

  private static final String SET_FIGURES =
      " set succeeded = :succeeded, failed = :failed, cancelled = :cancelled, pruned = :pruned,"
          + " gpu_hours = :gpuHours, gpu_memory_gib_hours = :gpuMemory,"
          + " measured_gpu_memory_gib_hours = :measured, core_hours = :coreHours,"
          + " memory_gib_hours = :memory, wait_max_seconds = :waitMax,"
          + " wait_histogram = :histogram";

  private static final String UPDATE_DAY =
      "update usage_daily" + SET_FIGURES + " where usage_day = :day and owner = :owner";

  private static final String UPDATE_LABEL =
      "update usage_daily_labels"
          + SET_FIGURES
          + " where usage_day = :day and owner = :owner and label_key = :key"
          + " and label_value = :value";

  private static final String VALUES =
      " :succeeded, :failed, :cancelled, :pruned, :gpuHours, :gpuMemory, :measured, :coreHours,"
          + " :memory, :waitMax, :histogram)";

  private static final String NEW_DAY =
      "insert into usage_daily (usage_day, owner, " + FIGURES + ") values (:day, :owner," + VALUES;

  private static final String NEW_LABEL =
      "insert into usage_daily_labels (usage_day, owner, label_key, label_value, "
          + FIGURES
          + ") values (:day, :owner, :key, :value,"
          + VALUES;

  private static final JsonColumns.Placement PLACEMENT = new JsonColumns.Placement();

  private final JdbcClient jdbc;

  private final TransactionTemplate tx;

  private final DataSource dataSource;

  private volatile TransactionTemplate snapshot;

  private volatile Runnable betweenReads = () -> {};

  public UsageTable(DataSource dataSource) {
    this.dataSource = dataSource;
    this.jdbc = JdbcClient.create(dataSource);
    this.tx = new TransactionTemplate(new DataSourceTransactionManager(dataSource));
  }

  /**
   * The report, read in one snapshot of the database: the mark, the rolled-up days and the rows
   * after the mark as they stood at one moment, so that a roll-up chunk committed while the report
   * reads neither counts its ends twice (in the rows after the old mark and in the roll-up) nor
   * misses them. A read-only transaction at REPEATABLE READ on PostgreSQL (a snapshot there), at
   * SERIALIZABLE on H2 (its REPEATABLE READ lets rows another transaction committed since appear in
   * a table read later; SERIALIZABLE reads one snapshot, and a reader blocks no writer on either).
   */
  @Override
  public UsageReport report(
      Instant from,
      Instant to,
      UsageReport.By by,
      String byText,
      String labelKey,
      String onlyOwner) {
    // One callback, the whole report: every read below is in the snapshot.
    TransactionCallback<UsageReport> read =
        status -> {
          UsageReport.Builder report = new UsageReport.Builder(from, to, by, byText, onlyOwner);
          // The whole days of the window from the roll-up; the day of "to" too when the
          // roll-up has reached into it (it holds that day up to its mark).
          LocalDate firstDay = LocalDate.ofInstant(from, ZoneOffset.UTC);
          if (midnight(firstDay).isBefore(from)) {
            firstDay = firstDay.plusDays(1);
          }
          LocalDate rowsEnd = LocalDate.ofInstant(to, ZoneOffset.UTC);
          Instant mark = mark();
          if (mark != null
              && !mark.isAfter(to)
              && midnight(rowsEnd).isBefore(to)
              && LocalDate.ofInstant(mark, ZoneOffset.UTC).equals(rowsEnd)) {
            rowsEnd = rowsEnd.plusDays(1);
          }
          betweenReads.run();
          List<Instant[]> live = new ArrayList<>();
          if (firstDay.isBefore(rowsEnd)) {
            report.rolledUp(
                rolledUp(firstDay, rowsEnd),
                by == UsageReport.By.LABEL
                    ? rolledUpLabels(labelKey, firstDay, rowsEnd)
                    : List.of());
            Instant covered = mark == null ? null : min(mark, midnight(rowsEnd));
            if (covered != null && covered.isAfter(midnight(firstDay))) {
              // Only the rows before the first midnight and after the mark are read one by one.
              if (from.isBefore(midnight(firstDay))) {
                live.add(new Instant[] {from, midnight(firstDay)});
              }
              if (covered.isBefore(to)) {
                live.add(new Instant[] {covered, to});
              }
            } else {
              live.add(new Instant[] {from, to});
            }
          } else {
            live.add(new Instant[] {from, to});
          }
          for (Instant[] range : live) {
            liveRows(report, range[0], range[1], by, labelKey, onlyOwner, live.size());
          }
          return report.build();
        };
    return snapshot().execute(read);
  }

  private TransactionTemplate snapshot() {
    TransactionTemplate snapshot = this.snapshot;
    if (snapshot == null) {
      snapshot = new TransactionTemplate(tx.getTransactionManager());
      snapshot.setReadOnly(true);
      snapshot.setIsolationLevel(
          isH2()
              ? TransactionDefinition.ISOLATION_SERIALIZABLE
              : TransactionDefinition.ISOLATION_REPEATABLE_READ);
      this.snapshot = snapshot;
    }
    return snapshot;
  }

  private boolean isH2() {
    try (Connection connection = dataSource.getConnection()) {
      return connection.getMetaData().getDatabaseProductName().equalsIgnoreCase("H2");
    } catch (SQLException e) {
      throw new IllegalStateException("cannot tell which database holds the jobs", e);
    }
  }

  /**
   * Runs between the report's read of the mark and its reads of the rows (tests: a roll-up chunk
   * committed there must change nothing the report reads).
   */
  public void betweenReads(Runnable action) {
    this.betweenReads = action;
  }

  private static Instant midnight(LocalDate day) {
    return day.atStartOfDay(ZoneOffset.UTC).toInstant();
  }

  private static Instant min(Instant a, Instant b) {
    return a.isBefore(b) ? a : b;
  }

  /** How far the roll-up has gone; null: it has not started. */
  public Instant mark() {
    return jdbc.sql(MARK).query((row, n) -> instant(row, "rolled_up_to")).optional().orElse(null);
  }

  /** Sums the jobs' rows of {@code [from, to)} into the report. */
  private void liveRows(
      UsageReport.Builder report,
      Instant from,
      Instant to,
      UsageReport.By by,
      String labelKey,
      String onlyOwner,
      int ranges) {
    Map<String, Object> window = new HashMap<>();
    window.put("from", utc(from));
    window.put("to", utc(to));
    if (by == UsageReport.By.LABEL) {
      window.put("key", labelKey);
    }
    String join = by == UsageReport.By.LABEL ? LABEL_JOIN : "";
    jdbc.sql(ATTEMPT_SUMS.formatted(key(by, "a"), join, "", ""))
        .params(window)
        .query(
            (RowCallbackHandler)
                row -> {
                  double hours = row.getDouble("hours");
                  report.attempts(
                      row.getString("owner"),
                      groupKey(by, row),
                      gpuEquivalents(row) * hours,
                      row.getDouble("budget_byte_hours") / GIB,
                      row.getDouble("peak_byte_hours") / GIB,
                      row.getDouble("core_hours"),
                      row.getDouble("memory_byte_hours") / GIB);
                });
    Map<String, Object> own = new HashMap<>(window);
    String ownerFilter = "";
    if (onlyOwner != null) {
      own.put("owner", onlyOwner);
      ownerFilter = OWNER_IS;
    }
    jdbc.sql(JOBS_BY_GROUP.formatted(key(by, "j"), join, ownerFilter))
        .params(own)
        .query((RowCallbackHandler) row -> jobFigures(row, report.group(groupKey(by, row))));
    jdbc.sql(JOBS_IN_ALL.formatted(key(by, "j"), join, ""))
        .params(window)
        .query((RowCallbackHandler) row -> jobFigures(row, report.total()));
    if (report.needsLiveHistograms(ranges)) {
      jdbc.sql(BUCKETS_BY_GROUP.formatted(key(by, "j"), join, ownerFilter))
          .params(own)
          .query(
              (RowCallbackHandler)
                  row ->
                      report
                          .group(groupKey(by, row))
                          .liveHistogram()
                          .add(row.getInt("b"), row.getLong("n")));
      jdbc.sql(BUCKETS_IN_ALL.formatted(key(by, "j"), join, ""))
          .params(window)
          .query(
              (RowCallbackHandler)
                  row -> report.total().liveHistogram().add(row.getInt("b"), row.getLong("n")));
    }
  }

  /**
   * Moves the roll-up on towards {@code upTo}, by at most {@code step} in one transaction that
   * holds the mark's lock (of several nodes one moves it; another waits, then goes on from where
   * the first stopped): what ended in between is summed per day and owner, and per day, owner and
   * label, in the database.
   *
   * @return the mark afterwards
   */
  @Override
  public Instant rollUpTo(Instant upTo, java.time.Duration step) {
    return tx.execute(
        status -> {
          Instant mark =
              jdbc.sql(LOCKED_MARK)
                  .query((row, n) -> instant(row, "rolled_up_to"))
                  .optional()
                  .orElse(null);
          Instant from = mark == null ? firstEnd() : mark;
          if (from == null || !from.isBefore(upTo)) {
            // Nothing ended yet: the mark waits where it is (or starts at upTo).
            if (mark == null) {
              jdbc.sql(SET_MARK).param("to", utc(upTo)).update();
              return upTo;
            }
            return mark;
          }
          Instant to = min(upTo, from.plus(step));
          Map<Slot, UsageReport.Tally> tallies = new HashMap<>();
          rollRange(tallies, from, to, false);
          rollRange(tallies, from, to, true);
          tallies.forEach(this::addTo);
          // What this chunk counted in the last hours before its end, written down for
          // rollUpLate (what the chunk before counted of those hours is written down already).
          Instant since = to.minus(COUNTED_FOR).isAfter(from) ? to.minus(COUNTED_FOR) : from;
          for (String sql : List.of(COUNT_ATTEMPTS, COUNT_JOBS)) {
            jdbc.sql(sql).param("from", utc(since)).param("to", utc(to)).update();
          }
          jdbc.sql(SET_MARK).param("to", utc(to)).update();
          return to;
        });
  }

  private Instant firstEnd() {
    Instant a = earliest(FIRST_ATTEMPT_END);
    Instant j = earliest(FIRST_JOB_END);
    return a == null ? j : j == null ? a : min(a, j);
  }

  /** The first end one of the two statements above finds (null: none). */
  private Instant earliest(String firstEnd) {
    return jdbc.sql(firstEnd)
        .param("from", utc(Instant.EPOCH))
        .query((row, n) -> instant(row, 1))
        .optional()
        .orElse(null);
  }

  private void rollRange(
      Map<Slot, UsageReport.Tally> tallies, Instant from, Instant to, boolean byLabel) {
    Map<String, Object> window = new HashMap<>();
    window.put("from", utc(from));
    window.put("to", utc(to));
    String join = byLabel ? EVERY_LABEL : "";
    String outer = byLabel ? ", lk, lv" : "";
    String inner = byLabel ? LABEL_COLUMNS : "";
    jdbc.sql(ATTEMPT_SUMS.formatted(key(UsageReport.By.DAY, "a"), join, outer, inner))
        .params(window)
        .query(
            (RowCallbackHandler)
                row ->
                    tallies
                        .computeIfAbsent(slot(row, byLabel), k -> new UsageReport.Tally())
                        .addHours(
                            gpuEquivalents(row) * row.getDouble("hours"),
                            row.getDouble("budget_byte_hours") / GIB,
                            row.getDouble("peak_byte_hours") / GIB,
                            row.getDouble("core_hours"),
                            row.getDouble("memory_byte_hours") / GIB));
    jdbc.sql(ROLL_JOBS.formatted(key(UsageReport.By.DAY, "j"), join, outer, inner, WAIT))
        .params(window)
        .query(
            (RowCallbackHandler)
                row -> {
                  UsageReport.Tally tally =
                      tallies.computeIfAbsent(slot(row, byLabel), k -> new UsageReport.Tally());
                  long n = row.getLong("n");
                  tally.addJobs(JobState.valueOf(row.getString("state")), n);
                  int bucket = row.getInt("b");
                  if (bucket >= 0) {
                    tally.addWaits(bucket, n, row.getObject("wmax", Double.class));
                  }
                });
  }

  private static Slot slot(ResultSet row, boolean byLabel) throws SQLException {
    return new Slot(
        LocalDate.ofEpochDay(row.getLong("grp")),
        row.getString("owner"),
        byLabel ? row.getString("lk") : null,
        byLabel ? row.getString("lv") : null);
  }

  private static final double GIB = 1024.0 * 1024 * 1024;

  /** The SQL of a group's key: {@code alias} is the table whose end time gives the day. */
  private static String key(UsageReport.By by, String alias) {
    return switch (by) {
      case OWNER -> "j.owner";
      case LABEL -> "l.label_value";
      case DAY -> "cast(floor(extract(epoch from " + alias + ".finished_at) / 86400) as bigint)";
    };
  }

  private static String groupKey(UsageReport.By by, ResultSet row) throws SQLException {
    if (by == UsageReport.By.DAY) {
      return LocalDate.ofEpochDay(row.getLong("grp")).toString();
    }
    return row.getString("grp");
  }

  private static void jobFigures(ResultSet row, UsageReport.Tally tally) throws SQLException {
    tally.addJobs(JobState.SUCCEEDED, row.getLong("succeeded"));
    tally.addJobs(JobState.FAILED, row.getLong("failed"));
    tally.addJobs(JobState.CANCELLED, row.getLong("cancelled"));
    tally.addJobs(JobState.PRUNED, row.getLong("pruned"));
    tally.exactWaits(
        new UsageReport.Wait(
            (Double) row.getObject("p50", Double.class),
            row.getObject("p95", Double.class),
            row.getObject("wmax", Double.class)));
  }

  /** Whole-GPU equivalents of one row of {@link #ATTEMPT_SUMS}: GPUs × their share. */
  private static double gpuEquivalents(ResultSet row) throws SQLException {
    int gpus = row.getInt("gpus");
    long budget = row.getLong("shared_budget");
    if (gpus == 0 || row.wasNull()) {
      return gpus;
    }
    double fraction = row.getDouble("shared_fraction");
    boolean askedFraction = !row.wasNull();
    return gpus * share(row.getString("shared_placement"), budget, askedFraction, fraction);
  }

  /** The share of a GPU a budget held: of the placed GPU's memory where it is known. */
  private static double share(
      String placementJson, long budget, boolean askedFraction, double fraction) {
    JobPlacement placement = PLACEMENT.convertToEntityAttribute(placementJson);
    long total =
        placement == null || placement.gpus().isEmpty() ? 0 : placement.gpus().get(0).totalBytes();
    return total > 0 ? Math.min(1.0, (double) budget / total) : askedFraction ? fraction : 1.0;
  }

  @Override
  public List<RolledUpDay> rolledUp(LocalDate fromDay, LocalDate toDay) {
    return jdbc.sql(ROLLED_UP)
        .param("from", fromDay)
        .param("to", toDay)
        .query((row, n) -> rolledUpDay(row))
        .list();
  }

  /** The rolled-up rows of label {@code key}'s values. */
  public List<RolledUpDay> rolledUpLabels(String key, LocalDate fromDay, LocalDate toDay) {
    return jdbc.sql(ROLLED_UP_LABELS)
        .param("key", key)
        .param("from", fromDay)
        .param("to", toDay)
        .query((row, n) -> rolledUpDay(row))
        .list();
  }

  private static RolledUpDay rolledUpDay(ResultSet row) throws SQLException {
    return rolledUpDay(
        row,
        row.getObject("usage_day", LocalDate.class),
        row.getString("owner"),
        row.getString("label_value"));
  }

  /** A roll-up row's figures, for the day, owner and label value given. */
  private static RolledUpDay rolledUpDay(ResultSet row, LocalDate day, String owner, String value)
      throws SQLException {
    Map<JobState, Long> jobs = new EnumMap<>(JobState.class);
    jobs.put(JobState.SUCCEEDED, row.getLong("succeeded"));
    jobs.put(JobState.FAILED, row.getLong("failed"));
    jobs.put(JobState.CANCELLED, row.getLong("cancelled"));
    jobs.put(JobState.PRUNED, row.getLong("pruned"));
    return new RolledUpDay(
        day,
        owner,
        value,
        jobs,
        row.getDouble("gpu_hours"),
        row.getDouble("gpu_memory_gib_hours"),
        row.getDouble("measured_gpu_memory_gib_hours"),
        row.getDouble("core_hours"),
        row.getDouble("memory_gib_hours"),
        row.getObject("wait_max_seconds", Double.class),
        WaitHistogram.parse(row.getString("wait_histogram")));
  }

  /** Where a roll-up row goes: a day and owner, and a label's key and value (null: the day's). */
  private record Slot(LocalDate day, String owner, String key, String value) {}

  /**
   * Adds these jobs' figures to their days (retention, before it deletes them, in its transaction):
   * each attempt to the day it ended, each job to the day it finished; once to the day's row of its
   * owner, and once to the row of each of its labels.
   */
  void rollUp(Collection<String> ids) {
    if (ids.isEmpty()) {
      return;
    }
    // What ended before the mark is in the roll-up already; the lock keeps the mark still until
    // this transaction, which deletes these jobs, ends.
    Instant mark =
        jdbc.sql(LOCKED_MARK)
            .query((row, n) -> instant(row, "rolled_up_to"))
            .optional()
            .orElse(null);
    tallyEnds(List.copyOf(ids), (id, attempt, at) -> mark == null || !at.isBefore(mark))
        .forEach(this::addTo);
  }

  /** Which of a job's ends to count: {@code attempt} 0 is the job's own finish. */
  private interface EndFilter {
    boolean counts(String jobId, int attempt, Instant finishedAt);
  }

  /** The figures of these jobs' ends that {@code counts} keeps, per slot. */
  private Map<Slot, UsageReport.Tally> tallyEnds(List<String> idList, EndFilter counts) {
    Map<String, Map<String, String>> labels = new HashMap<>();
    jdbc.sql(LABELS_OF)
        .param("ids", idList)
        .query(
            (RowCallbackHandler)
                row -> {
                  labels
                      .computeIfAbsent(row.getString("job_id"), k -> new TreeMap<>())
                      .put(row.getString("label_key"), row.getString("label_value"));
                });
    Map<Slot, UsageReport.Tally> tallies = new HashMap<>();
    jdbc.sql(ATTEMPTS_OF)
        .param("ids", idList)
        .query(
            (RowCallbackHandler)
                row -> {
                  EndedAttempt attempt = attempt(row);
                  String jobId = row.getString("job_id");
                  if (!counts.counts(jobId, row.getInt("attempt"), attempt.finishedAt())) {
                    return;
                  }
                  for (Slot slot :
                      slots(attempt.finishedAt(), attempt.owner(), labels.get(jobId))) {
                    tallies.computeIfAbsent(slot, k -> new UsageReport.Tally()).add(attempt);
                  }
                });
    jdbc.sql(JOBS_OF)
        .param("ids", idList)
        .query(
            (RowCallbackHandler)
                row -> {
                  Instant finished = instant(row, "finished_at");
                  JobState state = JobState.valueOf(row.getString("state"));
                  if (finished == null
                      || !state.isTerminal()
                      || !counts.counts(row.getString("id"), 0, finished)) {
                    return;
                  }
                  Instant created = instant(row, "created_at");
                  Instant started = instant(row, "first_start");
                  Double wait =
                      started == null
                          ? null
                          : (started.toEpochMilli() - created.toEpochMilli()) / 1000.0;
                  for (Slot slot :
                      slots(finished, row.getString("owner"), labels.get(row.getString("id")))) {
                    tallies
                        .computeIfAbsent(slot, k -> new UsageReport.Tally())
                        .addFinished(state, wait);
                  }
                });
    return tallies;
  }

  /**
   * Adds to the roll-up the ends it passed before they were stored: an end of the last {@link
   * #COUNTED_FOR} before the mark that no chunk wrote down in {@code usage_counted} (an end
   * committed more than the roll-up's lag after its time: another node's clock behind, a retry of a
   * stored end after a full disk). Each is added once, to its day, and written down, in one
   * transaction that holds the mark's lock; what is older than those hours is forgotten.
   *
   * @return how many ends were added (an attempt or a job's finish each)
   */
  @Override
  public int rollUpLate() {
    Integer added =
        tx.execute(
            status -> {
              Map<String, Object> marks = jdbc.sql(LOCKED_MARKS).query().singleRow();
              Instant mark = asInstant(marks.get("rolled_up_to"));
              if (mark == null) {
                return 0;
              }
              Instant since = mark.minus(COUNTED_FOR);
              jdbc.sql(FORGET_COUNTED).param("before", utc(since)).update();
              Instant countedFrom = asInstant(marks.get("counted_from"));
              if (countedFrom != null && countedFrom.isAfter(since)) {
                since = countedFrom;
              }
              Map<String, Object> window = Map.of("from", utc(since), "to", utc(mark));
              Map<String, Instant> late = new HashMap<>();
              for (String sql : List.of(LATE_ATTEMPTS, LATE_JOBS)) {
                jdbc.sql(sql)
                    .params(window)
                    .query(
                        (RowCallbackHandler)
                            row ->
                                late.put(
                                    endKey(row.getString("job_id"), row.getInt("attempt")),
                                    instant(row, "finished_at")));
              }
              if (late.isEmpty()) {
                return 0;
              }
              List<String> ids =
                  late.keySet().stream()
                      .map(k -> k.substring(0, k.indexOf('/')))
                      .distinct()
                      .toList();
              tallyEnds(ids, (id, attempt, at) -> late.containsKey(endKey(id, attempt)))
                  .forEach(this::addTo);
              late.forEach(
                  (key, at) ->
                      jdbc.sql(COUNTED)
                          .param("job", key.substring(0, key.indexOf('/')))
                          .param("attempt", Integer.parseInt(key.substring(key.indexOf('/') + 1)))
                          .param("at", utc(at))
                          .update());
              return late.size();
            });
    return added == null ? 0 : added;
  }

  private static String endKey(String jobId, int attempt) {
    return jobId + "/" + attempt;
  }

  private static Instant asInstant(Object value) throws IllegalStateException {
    if (value == null) {
      return null;
    }
    if (value instanceof OffsetDateTime at) {
      return at.toInstant();
    }
    if (value instanceof java.sql.Timestamp at) {
      return at.toInstant();
    }
    if (value instanceof java.time.ZonedDateTime at) {
      return at.toInstant();
    }
    throw new IllegalStateException("not a time: " + value.getClass());
  }

  private static List<Slot> slots(Instant at, String owner, Map<String, String> labels) {
    LocalDate day = at.atOffset(ZoneOffset.UTC).toLocalDate();
    List<Slot> slots = new ArrayList<>();
    slots.add(new Slot(day, owner, null, null));
    if (labels != null) {
      labels.forEach((key, value) -> slots.add(new Slot(day, owner, key, value)));
    }
    return slots;
  }

  /** Adds a tally to its row: read under a lock, summed here, written back (or inserted). */
  private void addTo(Slot slot, UsageReport.Tally add) {
    Map<String, Object> where = new HashMap<>();
    where.put("day", slot.day());
    where.put("owner", slot.owner());
    boolean labelled = slot.key() != null;
    if (labelled) {
      where.put("key", slot.key());
      where.put("value", slot.value());
    }
    List<RolledUpDay> existing =
        jdbc.sql(labelled ? LABEL_ROW : DAY_ROW)
            .params(where)
            .query((row, n) -> rolledUpDay(row, slot.day(), slot.owner(), slot.value()))
            .list();
    Map<String, Object> values = new HashMap<>(where);
    WaitHistogram waits = new WaitHistogram();
    waits.addAll(add.waits());
    Double waitMax = add.longestWait();
    long[] counts = {
      add.jobs().getOrDefault(JobState.SUCCEEDED, 0L),
      add.jobs().getOrDefault(JobState.FAILED, 0L),
      add.jobs().getOrDefault(JobState.CANCELLED, 0L),
      add.jobs().getOrDefault(JobState.PRUNED, 0L)
    };
    double[] sums = {
      add.gpuHours(),
      add.gpuMemoryGiBHours(),
      add.measuredGpuMemoryGiBHours(),
      add.coreHours(),
      add.memoryGiBHours()
    };
    if (!existing.isEmpty()) {
      RolledUpDay old = existing.get(0);
      counts[0] += old.jobs().get(JobState.SUCCEEDED);
      counts[1] += old.jobs().get(JobState.FAILED);
      counts[2] += old.jobs().get(JobState.CANCELLED);
      counts[3] += old.jobs().get(JobState.PRUNED);
      sums[0] += old.gpuHours();
      sums[1] += old.gpuMemoryGiBHours();
      sums[2] += old.measuredGpuMemoryGiBHours();
      sums[3] += old.coreHours();
      sums[4] += old.memoryGiBHours();
      waits.addAll(old.waits());
      if (old.waitMaxSeconds() != null) {
        waitMax = waitMax == null ? old.waitMaxSeconds() : Math.max(waitMax, old.waitMaxSeconds());
      }
    }
    values.put("succeeded", counts[0]);
    values.put("failed", counts[1]);
    values.put("cancelled", counts[2]);
    values.put("pruned", counts[3]);
    values.put("gpuHours", sums[0]);
    values.put("gpuMemory", sums[1]);
    values.put("measured", sums[2]);
    values.put("coreHours", sums[3]);
    values.put("memory", sums[4]);
    values.put("waitMax", waitMax);
    values.put("histogram", waits.text());
    String sql =
        existing.isEmpty()
            ? (labelled ? NEW_LABEL : NEW_DAY)
            : labelled ? UPDATE_LABEL : UPDATE_DAY;
    jdbc.sql(sql).params(values).update();
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
    double share =
        gpus > 0 && (askedBytes || askedFraction)
            ? share(row.getString("placement"), budget, askedFraction, fraction)
            : 1.0;
    return new EndedAttempt(
        row.getString("owner"),
        instant(row, "started_at"),
        instant(row, "finished_at"),
        gpus * share,
        gpus * budget,
        gpus * peak,
        JobTable.cpus(row.getBigDecimal("cpus")).number().doubleValue(),
        memory);
  }

  private static Instant instant(ResultSet row, String column) throws SQLException {
    OffsetDateTime at = row.getObject(column, OffsetDateTime.class);
    return at == null ? null : at.toInstant();
  }

  private static Instant instant(ResultSet row, int column) throws SQLException {
    OffsetDateTime at = row.getObject(column, OffsetDateTime.class);
    return at == null ? null : at.toInstant();
  }

  private static OffsetDateTime utc(Instant at) {
    return at.atOffset(ZoneOffset.UTC);
  }
}
