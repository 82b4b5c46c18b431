package io.gpuq.storage;

import io.gpuq.job.JobState;
import io.gpuq.job.NewJob;
import io.gpuq.sweep.BestScope;
import io.gpuq.sweep.BestTrial;
import io.gpuq.sweep.Goal;
import io.gpuq.sweep.Metric;
import io.gpuq.sweep.Sweep;
import io.gpuq.sweep.SweepConflictException;
import io.gpuq.sweep.SweepFigures;
import io.gpuq.sweep.SweepKeyTakenException;
import io.gpuq.sweep.SweepLimits;
import io.gpuq.sweep.SweepNotFoundException;
import io.gpuq.sweep.SweepStore;
import io.gpuq.sweep.TrialCursor;
import io.gpuq.sweep.TrialOrder;
import io.gpuq.sweep.TrialQuery;
import io.gpuq.sweep.TrialRow;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.IntFunction;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.dao.DataIntegrityViolationException;
import org.springframework.dao.PessimisticLockingFailureException;
import org.springframework.jdbc.core.ConnectionCallback;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.core.RowMapper;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * The sweep store in the shared database (H2, PostgreSQL), in plain SQL: a sweep's row and its
 * trials' rows ({@link JobRows}, in batches) are written in one transaction, and every read is a
 * query on indexed columns, never a load of 10,000 jobs.
 */
public class JdbcSweepStore implements SweepStore {

  private static final Logger log = LoggerFactory.getLogger(JdbcSweepStore.class);
  private static final int CANCEL_ATTEMPTS = 3;

  private static final String COLUMNS =
      "id, owner, name, method, definition, metric_name, metric_goal, early_stopping,"
          + " max_concurrent, seed, trial_count, closed, cancelled_at, idempotency_key, created_at,"
          + " finished_at";
  private static final String UNFINISHED =
      "'" + JobState.QUEUED.name() + "', '" + JobState.RUNNING.name() + "'";
  private static final String TRIAL_COLUMNS =
      "id, trial, parameters, state, metric_value, metric_best, metrics_step";

  private final JdbcTemplate jdbc;
  private final TransactionTemplate tx;

  public JdbcSweepStore(JdbcTemplate jdbc, TransactionTemplate tx) {
    this.jdbc = jdbc;
    this.tx = tx;
  }

  @Override
  public void create(Sweep sweep, List<NewJob> trials) {
    create(sweep, trials, Long.MAX_VALUE);
  }

  @Override
  public void create(Sweep sweep, List<NewJob> trials, long maxQueued) {
    create(sweep, trials, maxQueued, List.of());
  }

  @Override
  public void create(
      Sweep sweep, List<NewJob> trials, long maxQueued, List<io.gpuq.job.NotifyTarget> notify) {
    try {
      tx.executeWithoutResult(
          status -> {
            jdbc.execute(
                (ConnectionCallback<Void>)
                    connection -> {
                      OwnerRowsImpl.requireQueuedRoom(
                          connection, sweep.owner(), trials.size(), maxQueued, sweep.createdAt());
                      return null;
                    });
            jdbc.update(
                "insert into sweeps ("
                    + COLUMNS
                    + ", version) values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 0)",
                sweep.id(),
                sweep.owner(),
                sweep.name(),
                sweep.method(),
                sweep.definitionJson(),
                sweep.metric() == null ? null : sweep.metric().name(),
                sweep.metric() == null ? null : sweep.metric().goal().wireName(),
                sweep.earlyStoppingJson(),
                sweep.maxConcurrent(),
                sweep.seed(),
                sweep.trialCount(),
                sweep.closed(),
                at(sweep.cancelledAt()),
                sweep.idempotencyKey(),
                at(sweep.createdAt()),
                at(sweep.finishedAt()));
            jdbc.execute(
                (ConnectionCallback<Void>)
                    connection -> {
                      JobRows.insertQueued(connection, trials);
                      return null;
                    });
            if (!notify.isEmpty()) {
              // Its notifications (issue 37), in this transaction: on the same data source, the
              // table's statements run on the transaction's connection.
              new NotificationTable(jdbc.getDataSource())
                  .add(null, sweep.id(), sweep.owner(), notify, sweep.createdAt());
            }
          });
    } catch (DataIntegrityViolationException e) {
      if (sweep.idempotencyKey() != null
          && findByKey(sweep.owner(), sweep.idempotencyKey()).isPresent()) {
        throw new SweepKeyTakenException(sweep.owner(), sweep.idempotencyKey(), e);
      }
      throw e;
    }
  }

  @Override
  public Optional<Sweep> find(String id) {
    return tx.execute(
        status ->
            jdbc.query("select " + COLUMNS + " from sweeps where id = ?", SWEEP, id).stream()
                .findFirst());
  }

  @Override
  public long countUnfinished(String owner) {
    Long count =
        jdbc.queryForObject(
            "select count(*) from sweeps where owner = ? and finished_at is null",
            Long.class,
            owner);
    return count == null ? 0 : count;
  }

  @Override
  public Optional<Sweep> findByKey(String owner, String idempotencyKey) {
    return tx.execute(
        status ->
            jdbc
                .query(
                    "select " + COLUMNS + " from sweeps where owner = ? and idempotency_key = ?",
                    SWEEP,
                    owner,
                    idempotencyKey)
                .stream()
                .findFirst());
  }

  @Override
  public SweepPage page(String owner, String beforeId, int limit) {
    List<String> where = new ArrayList<>();
    List<Object> args = new ArrayList<>();
    if (owner != null) {
      where.add("owner = ?");
      args.add(owner);
    }
    if (beforeId != null) {
      where.add("id < ?");
      args.add(beforeId);
    }
    args.add(limit + 1);
    String sql =
        "select "
            + COLUMNS
            + " from sweeps"
            + (where.isEmpty() ? "" : " where " + String.join(" and ", where))
            + " order by id desc limit ?";
    List<Sweep> rows = tx.execute(status -> jdbc.query(sql, SWEEP, args.toArray()));
    if (rows.size() <= limit) {
      return new SweepPage(rows, null);
    }
    List<Sweep> page = rows.subList(0, limit);
    return new SweepPage(List.copyOf(page), page.get(limit - 1).id());
  }

  @Override
  public Map<String, Map<JobState, Long>> trialCounts(Collection<String> sweepIds) {
    Map<String, Map<JobState, Long>> counts = new HashMap<>();
    for (String id : sweepIds) {
      Map<JobState, Long> zero = new EnumMap<>(JobState.class);
      for (JobState state : JobState.ofJobs()) {
        zero.put(state, 0L);
      }
      counts.put(id, zero);
    }
    if (sweepIds.isEmpty()) {
      return counts;
    }
    String sql =
        "select sweep_id, state, count(*) from jobs where sweep_id in ("
            + String.join(", ", Collections.nCopies(sweepIds.size(), "?"))
            + ") group by sweep_id, state";
    tx.executeWithoutResult(
        status ->
            jdbc.query(
                sql,
                row -> {
                  counts
                      .get(row.getString(1))
                      .put(JobState.valueOf(row.getString(2)), row.getLong(3));
                },
                sweepIds.toArray()));
    return counts;
  }

  @Override
  public Map<String, BestTrial> best(Collection<String> sweepIds, BestScope scope) {
    if (sweepIds.isEmpty()) {
      return Map.of();
    }
    String value = BestTrialSql.valueColumn(scope);
    String sql =
        BestTrialSql.bestTrials(
            scope,
            "j.sweep_id, j.id, j.trial, j.parameters, j." + value + ", j.metrics_step",
            "s.id in (" + String.join(", ", Collections.nCopies(sweepIds.size(), "?")) + ")");
    List<Object> args =
        new ArrayList<>(Collections.nCopies(BestTrialSql.PARAMETERS, BestTrialSql.PARAMETER));
    args.addAll(sweepIds);
    Map<String, BestTrial> best = new HashMap<>();
    tx.executeWithoutResult(
        status ->
            jdbc.query(
                sql,
                row -> {
                  best.put(
                      row.getString("sweep_id"),
                      new BestTrial(
                          row.getString("id"),
                          row.getInt("trial"),
                          row.getString("parameters"),
                          row.getDouble(value),
                          row.getObject("metrics_step", Long.class)));
                },
                args.toArray()));
    return best;
  }

  @Override
  public TrialPage trials(TrialQuery query) {
    List<Object> args = new ArrayList<>();
    StringBuilder sql =
        new StringBuilder("select " + TRIAL_COLUMNS + " from jobs where sweep_id = ?");
    args.add(query.sweepId());
    if (query.state() != null) {
      sql.append(" and state = ?");
      args.add(query.state().name());
    }
    boolean byValue = query.order() != TrialOrder.CREATED;
    String value = BestTrialSql.valueColumn(query.scope());
    boolean ascending =
        query.order().ascendingValues(query.goal() == null ? Goal.MINIMIZE : query.goal());
    TrialCursor after = query.after();
    if (after != null) {
      if (!byValue) {
        sql.append(" and trial > ?");
        args.add(after.trial());
      } else if (after.value() == null) {
        // Past the last row with a value: only those without one remain.
        sql.append(" and " + value + " is null and trial > ?");
        args.add(after.trial());
      } else {
        sql.append(" and (")
            .append(value)
            .append(ascending ? " > " : " < ")
            .append("? or (")
            .append(value)
            .append(" = ? and trial > ?) or ")
            .append(value)
            .append(" is null)");
        args.add(after.value());
        args.add(after.value());
        args.add(after.trial());
      }
    }
    sql.append(
        byValue
            ? " order by " + value + " " + (ascending ? "asc" : "desc") + " nulls last, trial"
            : " order by trial");
    sql.append(" limit ?");
    args.add(query.limit() + 1);
    List<TrialRow> rows = tx.execute(status -> jdbc.query(sql.toString(), TRIAL, args.toArray()));
    if (rows.size() <= query.limit()) {
      return new TrialPage(rows, null);
    }
    List<TrialRow> page = List.copyOf(rows.subList(0, query.limit()));
    TrialRow last = page.get(page.size() - 1);
    Double lastValue = query.scope() == BestScope.LAST ? last.value() : last.bestValue();
    return new TrialPage(page, new TrialCursor(byValue ? lastValue : null, last.trial()));
  }

  @Override
  public NewJob addTrial(String sweepId, IntFunction<NewJob> trialNumbered) {
    return addTrial(sweepId, trialNumbered, Long.MAX_VALUE);
  }

  @Override
  public NewJob addTrial(String sweepId, IntFunction<NewJob> trialNumbered, long maxQueued) {
    return tx.execute(
        status -> {
          Sweep sweep = lock(sweepId);
          sweep.requireExternalToAddTrials();
          requireNotCancelled(sweep);
          if (sweep.closed()) {
            throw new SweepConflictException(
                "sweep " + sweepId + " is closed: no more trials are added");
          }
          if (sweep.trialCount() >= SweepLimits.MAX_TRIALS) {
            throw new SweepConflictException(
                "sweep "
                    + sweepId
                    + " has "
                    + sweep.trialCount()
                    + " trials, the most one sweep has");
          }
          NewJob trial = trialNumbered.apply(sweep.trialCount());
          jdbc.execute(
              (ConnectionCallback<Void>)
                  connection -> {
                    OwnerRowsImpl.requireQueuedRoom(
                        connection, sweep.owner(), 1, maxQueued, trial.createdAt());
                    JobRows.insertQueued(connection, List.of(trial));
                    return null;
                  });
          jdbc.update(
              "update sweeps set trial_count = trial_count + 1, version = version + 1"
                  + " where id = ?",
              sweepId);
          return trial;
        });
  }

  @Override
  public Sweep close(String sweepId, Instant now) {
    return tx.execute(
        status -> {
          Sweep sweep = lock(sweepId);
          sweep.requireExternalToClose();
          requireNotCancelled(sweep);
          if (!sweep.closed()) {
            jdbc.update(
                "update sweeps set closed = true, version = version + 1 where id = ?", sweepId);
          }
          jdbc.update(STAMP_FINISHED + " and id = ?", at(now), sweepId);
          // Read once, after both writes: finished_at is the database's answer.
          return find(sweepId).orElseThrow(() -> new SweepNotFoundException(sweepId));
        });
  }

  @Override
  public List<String> cancel(String sweepId, Instant now) {
    // A cancel locks the sweep, then its trials; a trial's end or claim may hold a trial and want
    // the sweep. The database then rolls one back as a deadlock's victim: the cancel, which
    // changed nothing yet that outlives its transaction, is tried again.
    for (int attempt = 1; ; attempt++) {
      try {
        return cancelOnce(sweepId, now);
      } catch (PessimisticLockingFailureException victim) {
        if (attempt == CANCEL_ATTEMPTS) {
          throw victim;
        }
        log.info("cancel of sweep {} was a deadlock's victim; trying again", sweepId);
      }
    }
  }

  private List<String> cancelOnce(String sweepId, Instant now) {
    return tx.execute(
        status -> {
          Sweep sweep = lock(sweepId);
          if (sweep.isCancelled()) {
            throw new SweepConflictException("sweep " + sweepId + " was already cancelled");
          }
          if (sweep.finishedAt() != null || (sweep.closed() && unfinishedTrials(sweepId) == 0)) {
            throw new SweepConflictException(
                "sweep " + sweepId + " has already finished: every trial has ended");
          }
          List<String> running =
              jdbc.execute(
                  (ConnectionCallback<List<String>>)
                      connection ->
                          JobRows.cancelWhere(connection, "sweep_id = ?", List.of(sweepId), now));
          jdbc.update(
              "update sweeps set cancelled_at = ?, finished_at = ?, version = version + 1"
                  + " where id = ?",
              at(now),
              at(now),
              sweepId);
          return running;
        });
  }

  private long unfinishedTrials(String sweepId) {
    Long count =
        jdbc.queryForObject(
            "select count(*) from jobs where sweep_id = ? and state in (" + UNFINISHED + ")",
            Long.class,
            sweepId);
    return count == null ? 0 : count;
  }

  /** A cancelled sweep takes no more trials and is not closed: it ended otherwise. */
  private static void requireNotCancelled(Sweep sweep) {
    if (sweep.isCancelled()) {
      throw new SweepConflictException("sweep " + sweep.id() + " was cancelled");
    }
  }

  /** The sweep's row, locked until the transaction ends. */
  private Sweep lock(String sweepId) {
    return jdbc
        .query("select " + COLUMNS + " from sweeps where id = ? for update", SWEEP, sweepId)
        .stream()
        .findFirst()
        .orElseThrow(() -> new SweepNotFoundException(sweepId));
  }

  private static final String STAMP_FINISHED =
      "update sweeps set finished_at = coalesce((select max(j.finished_at) from jobs j"
          + " where j.sweep_id = sweeps.id), ?), version = version + 1"
          + " where finished_at is null and cancelled_at is null and closed = true"
          + " and not exists (select 1 from jobs j where j.sweep_id = sweeps.id"
          + " and j.state in ("
          + UNFINISHED
          + "))";

  @Override
  public int stampFinished(Instant now) {
    Integer stamped = tx.execute(status -> jdbc.update(STAMP_FINISHED, at(now)));
    return stamped == null ? 0 : stamped;
  }

  @Override
  public Optional<Sweep> stampFinished(String sweepId, Instant now) {
    tx.executeWithoutResult(
        status -> jdbc.update(STAMP_FINISHED + " and id = ?", at(now), sweepId));
    return find(sweepId);
  }

  // The sweep meters' reads: grouped queries over every unfinished sweep, never one per sweep.
  private static final String UNFINISHED_TRIALS =
      "select j.sweep_id, j.state, count(*) from jobs j join sweeps s on s.id = j.sweep_id"
          + " where s.finished_at is null group by j.sweep_id, j.state";

  // The value of each unfinished sweep's best trial, as the sweep's view names it.
  private static final String UNFINISHED_BEST =
      BestTrialSql.bestTrials(
          BestScope.LAST,
          "s.id, j." + BestTrialSql.valueColumn(BestScope.LAST),
          "s.finished_at is null");

  private static final String RUNNING_ON =
      "select id, name, owner, sweep_id from jobs where state = 'RUNNING' and node = ?";

  /**
   * The sweep meters' figures in three grouped queries: trials per unfinished sweep and state, the
   * value of each unfinished sweep's best trial (as its view names it), and the running jobs of
   * {@code node}. Not part of {@link SweepStore}: only this node's meters read it, at their pace.
   */
  public SweepFigures figures(String node) {
    Map<String, Map<JobState, Long>> trials = new HashMap<>();
    jdbc.query(
        UNFINISHED_TRIALS,
        row -> {
          trials
              .computeIfAbsent(row.getString(1), sweep -> new HashMap<>())
              .put(JobState.valueOf(row.getString(2)), row.getLong(3));
        });
    Map<String, Double> best = new HashMap<>();
    jdbc.query(
        UNFINISHED_BEST,
        row -> {
          double value = row.getDouble(2);
          if (!row.wasNull()) {
            best.put(row.getString(1), value);
          }
        },
        Collections.nCopies(BestTrialSql.PARAMETERS, BestTrialSql.PARAMETER).toArray());
    List<SweepFigures.RunningJob> running =
        jdbc.query(
            RUNNING_ON,
            (row, n) ->
                new SweepFigures.RunningJob(
                    row.getString(1), row.getString(2), row.getString(3), row.getString(4)),
            node);
    return new SweepFigures(trials, best, running);
  }

  private static OffsetDateTime at(Instant instant) {
    return instant == null ? null : instant.atOffset(ZoneOffset.UTC);
  }

  private static Instant instant(ResultSet row, String column) throws SQLException {
    OffsetDateTime at = row.getObject(column, OffsetDateTime.class);
    return at == null ? null : at.toInstant();
  }

  private static final RowMapper<Sweep> SWEEP =
      (row, n) -> {
        String metricName = row.getString("metric_name");
        String goal = row.getString("metric_goal");
        return new Sweep(
            row.getString("id"),
            row.getString("owner"),
            row.getString("name"),
            row.getString("method"),
            row.getString("definition"),
            metricName == null ? null : new Metric(metricName, Goal.of(goal)),
            row.getString("early_stopping"),
            row.getObject("max_concurrent", Integer.class),
            row.getObject("seed", Long.class),
            row.getInt("trial_count"),
            row.getBoolean("closed"),
            instant(row, "cancelled_at"),
            row.getString("idempotency_key"),
            instant(row, "created_at"),
            instant(row, "finished_at"));
      };

  private static final RowMapper<TrialRow> TRIAL =
      (row, n) ->
          new TrialRow(
              row.getString("id"),
              row.getInt("trial"),
              row.getString("parameters"),
              JobState.valueOf(row.getString("state")),
              row.getObject("metric_value", Double.class),
              row.getObject("metric_best", Double.class),
              row.getObject("metrics_step", Long.class));
}
