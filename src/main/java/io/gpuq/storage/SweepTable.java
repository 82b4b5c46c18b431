package io.gpuq.storage;

import io.gpuq.concurrency.TrialSlots;
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
import java.util.Collection;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.IntFunction;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.dao.DataIntegrityViolationException;
import org.springframework.dao.PessimisticLockingFailureException;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.core.RowMapper;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * The SQL of the table {@code sweeps}, and of the reads of a sweep's trials ({@code jobs} by {@code
 * sweep_id}): the sweep store in the shared database (H2, PostgreSQL). A sweep's row and its
 * trials' rows ({@link TrialTable}, many at once) are written in one transaction, and every read is
 * a query on indexed columns, never a load of 10,000 jobs. The best trial of a sweep is defined
 * once, here ({@link #BEST_LAST_ID}, {@link #BEST_EVER_ID}), for the sweep's view and its gauge
 * alike. The sweeps' limits on running trials are read here too, in the job store's own
 * transactions ({@link #lockTrialSlotsOf}).
 */
public class SweepTable implements SweepStore {

  private static final Logger log = LoggerFactory.getLogger(SweepTable.class);
  private static final int CANCEL_ATTEMPTS = 3;

  private static final String INSERT =
      "insert into sweeps (id, owner, name, method, definition, metric_name, metric_goal,"
          + " early_stopping, max_concurrent, seed, trial_count, closed, cancelled_at,"
          + " idempotency_key, created_at, finished_at, version) values (:id, :owner, :name,"
          + " :method, :definition, :metricName, :metricGoal, :earlyStopping, :maxConcurrent,"
          + " :seed, :trialCount, :closed, :cancelledAt, :idempotencyKey, :createdAt, :finishedAt,"
          + " 0)";

  private static final String BY_ID =
      "select id, owner, name, method, definition, metric_name, metric_goal, early_stopping,"
          + " max_concurrent, seed, trial_count, closed, cancelled_at, idempotency_key, created_at,"
          + " finished_at from sweeps where id = :id";

  /** The sweep's row, locked until the transaction ends. */
  private static final String LOCK =
      "select id, owner, name, method, definition, metric_name, metric_goal, early_stopping,"
          + " max_concurrent, seed, trial_count, closed, cancelled_at, idempotency_key, created_at,"
          + " finished_at from sweeps where id = :id for update";

  private static final String BY_KEY =
      "select id, owner, name, method, definition, metric_name, metric_goal, early_stopping,"
          + " max_concurrent, seed, trial_count, closed, cancelled_at, idempotency_key, created_at,"
          + " finished_at from sweeps where owner = :owner and idempotency_key = :key";

  /** A page of sweeps, newest first; its conditions (owner, before an id) are added as asked. */
  private static final String PAGE =
      "select id, owner, name, method, definition, metric_name, metric_goal, early_stopping,"
          + " max_concurrent, seed, trial_count, closed, cancelled_at, idempotency_key, created_at,"
          + " finished_at from sweeps";

  private static final String COUNT_UNFINISHED =
      "select count(*) from sweeps where owner = :owner and finished_at is null";

  private static final String TRIAL_COUNTS =
      "select sweep_id, state, count(*) from jobs where sweep_id in (:ids)"
          + " group by sweep_id, state";

  private static final String UNFINISHED_TRIALS_OF =
      "select count(*) from jobs where sweep_id = :id and state in ('QUEUED', 'RUNNING')";

  /** A page of a sweep's trials; the state, the cursor and the order are added as asked. */
  private static final String TRIALS =
      "select id, trial, parameters, state, metric_value, metric_best, metrics_step from jobs"
          + " where sweep_id = :sweep";

  private static final String ONE_MORE_TRIAL =
      "update sweeps set trial_count = trial_count + 1, version = version + 1 where id = :id";

  private static final String CLOSE =
      "update sweeps set closed = true, version = version + 1 where id = :id";

  private static final String CANCEL =
      "update sweeps set cancelled_at = :now, finished_at = :now, version = version + 1"
          + " where id = :id";

  /**
   * Stamps each closed sweep with no trial left queued or running as finished, at its last trial's
   * end (or now, when it has none).
   */
  private static final String STAMP_FINISHED =
      "update sweeps set finished_at = coalesce((select max(j.finished_at) from jobs j"
          + " where j.sweep_id = sweeps.id), :now), version = version + 1"
          + " where finished_at is null and cancelled_at is null and closed = true"
          + " and not exists (select 1 from jobs j where j.sweep_id = sweeps.id"
          + " and j.state in ('QUEUED', 'RUNNING'))";

  private static final String STAMP_FINISHED_ONE =
      "update sweeps set finished_at = coalesce((select max(j.finished_at) from jobs j"
          + " where j.sweep_id = sweeps.id), :now), version = version + 1"
          + " where finished_at is null and cancelled_at is null and closed = true"
          + " and not exists (select 1 from jobs j where j.sweep_id = sweeps.id"
          + " and j.state in ('QUEUED', 'RUNNING')) and id = :id";

  /**
   * The id of sweep {@code s}'s best trial by its last value (of succeeded trials) and its own
   * goal, null when none has a value: first by value, then by number, an index walk to its first
   * row, not a ranking of every reported trial. {@code :finite} is +Infinity: "<= +Infinity" leaves
   * out NaN, which both databases sort above all.
   */
  private static final String BEST_LAST_ID =
      "case when lower(s.metric_goal) = 'maximize' then (select b.id from jobs b"
          + " where b.sweep_id = s.id and b.state = 'SUCCEEDED' and b.metric_value <= :finite"
          + " order by b.metric_value desc, b.trial limit 1) else (select b.id from jobs b"
          + " where b.sweep_id = s.id and b.state = 'SUCCEEDED' and b.metric_value <= :finite"
          + " order by b.metric_value asc, b.trial limit 1) end";

  /** As {@link #BEST_LAST_ID}, by the best value each trial ever reported, of any state. */
  private static final String BEST_EVER_ID =
      "case when lower(s.metric_goal) = 'maximize' then (select b.id from jobs b"
          + " where b.sweep_id = s.id and b.metric_best <= :finite"
          + " order by b.metric_best desc, b.trial limit 1) else (select b.id from jobs b"
          + " where b.sweep_id = s.id and b.metric_best <= :finite"
          + " order by b.metric_best asc, b.trial limit 1) end";

  private static final String BEST_LAST_OF =
      "select j.sweep_id, j.id, j.trial, j.parameters, j.metric_value as best_value, j.metrics_step"
          + " from sweeps s join jobs j on j.id = "
          + BEST_LAST_ID
          + " where s.metric_name is not null and s.id in (:ids)";

  private static final String BEST_EVER_OF =
      "select j.sweep_id, j.id, j.trial, j.parameters, j.metric_best as best_value, j.metrics_step"
          + " from sweeps s join jobs j on j.id = "
          + BEST_EVER_ID
          + " where s.metric_name is not null and s.id in (:ids)";

  // The sweep meters' reads: grouped queries over every unfinished sweep, never one per sweep.
  private static final String UNFINISHED_TRIALS =
      "select j.sweep_id, j.state, count(*) from jobs j join sweeps s on s.id = j.sweep_id"
          + " where s.finished_at is null group by j.sweep_id, j.state";

  /** The value of each unfinished sweep's best trial, as the sweep's view names it. */
  private static final String UNFINISHED_BEST =
      "select s.id, j.metric_value from sweeps s join jobs j on j.id = "
          + BEST_LAST_ID
          + " where s.metric_name is not null and s.finished_at is null";

  private static final String RUNNING_ON =
      "select id, name, owner, sweep_id from jobs where state = 'RUNNING' and node = :node";

  // The sweeps' limits on running trials (sweeps.max_concurrent), read where jobs are queued and
  // claimed. The limited sweeps first, locked in id order (two claims never wait on each other in a
  // circle), and only then their running trials: counted after the lock, the count includes what a
  // claim that held the lock before us committed.
  private static final String LOCK_LIMITED_OF_JOBS =
      "select id, max_concurrent from sweeps where max_concurrent is not null"
          + " and id in (select sweep_id from jobs where id in (:jobIds)) order by id for update";

  private static final String RUNNING_TRIALS =
      "select sweep_id, count(*) from jobs where state = 'RUNNING' and sweep_id in (:ids)"
          + " group by sweep_id";

  private static final String TRIAL_SLOTS =
      "select s.id, s.max_concurrent,"
          + " (select count(*) from jobs j where j.sweep_id = s.id and j.state = 'RUNNING')"
          + " from sweeps s where s.max_concurrent is not null and s.id in (:ids)";

  // Unfinished sweeps only: a finished one has no queued trial left to hold back.
  private static final String FULL =
      "select s.id, s.max_concurrent, count(*) from sweeps s"
          + " join jobs j on j.sweep_id = s.id and j.state = 'RUNNING'"
          + " where s.max_concurrent is not null and s.finished_at is null"
          + " group by s.id, s.max_concurrent having count(*) >= s.max_concurrent";

  private final JdbcClient sql;

  /** A sweep's trials, inserted and cancelled many at once, in this store's transactions. */
  private final TrialTable trialTable;

  /** The sweep's notifications, written in the transaction that creates it. */
  private final NotificationTable notifications;

  /** The owners' queued limits, checked in the transaction that queues trials. */
  private final OwnerQueuedTable queued;

  private final TransactionTemplate tx;

  public SweepTable(JdbcTemplate jdbc, TransactionTemplate tx) {
    this.sql = JdbcClient.create(jdbc);
    this.trialTable = new TrialTable(jdbc.getDataSource());
    this.notifications = new NotificationTable(jdbc.getDataSource());
    this.queued = new OwnerQueuedTable(jdbc.getDataSource());
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
            queued.requireQueuedRoom(sweep.owner(), trials.size(), maxQueued, sweep.createdAt());
            sql.sql(INSERT)
                .param("id", sweep.id())
                .param("owner", sweep.owner())
                .param("name", sweep.name())
                .param("method", sweep.method())
                .param("definition", sweep.definitionJson())
                .param("metricName", sweep.metric() == null ? null : sweep.metric().name())
                .param(
                    "metricGoal", sweep.metric() == null ? null : sweep.metric().goal().wireName())
                .param("earlyStopping", sweep.earlyStoppingJson())
                .param("maxConcurrent", sweep.maxConcurrent())
                .param("seed", sweep.seed())
                .param("trialCount", sweep.trialCount())
                .param("closed", sweep.closed())
                .param("cancelledAt", at(sweep.cancelledAt()))
                .param("idempotencyKey", sweep.idempotencyKey())
                .param("createdAt", at(sweep.createdAt()))
                .param("finishedAt", at(sweep.finishedAt()))
                .update();
            trialTable.insertQueued(trials);
            if (!notify.isEmpty()) {
              // Its notifications (issue 37), in this transaction: on the same data source, the
              // table's statements run on the transaction's connection.
              notifications.add(null, sweep.id(), sweep.owner(), notify, sweep.createdAt());
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
    return tx.execute(status -> sql.sql(BY_ID).param("id", id).query(SWEEP).optional());
  }

  @Override
  public long countUnfinished(String owner) {
    return sql.sql(COUNT_UNFINISHED).param("owner", owner).query(Long.class).single();
  }

  @Override
  public Optional<Sweep> findByKey(String owner, String idempotencyKey) {
    return tx.execute(
        status ->
            sql.sql(BY_KEY)
                .param("owner", owner)
                .param("key", idempotencyKey)
                .query(SWEEP)
                .optional());
  }

  @Override
  public SweepPage page(String owner, String beforeId, int limit) {
    StringBuilder query = new StringBuilder(PAGE);
    if (owner != null) {
      query.append(" where owner = :owner");
    }
    if (beforeId != null) {
      query.append(owner == null ? " where" : " and").append(" id < :before");
    }
    query.append(" order by id desc limit :limit");
    List<Sweep> rows =
        tx.execute(
            status -> {
              JdbcClient.StatementSpec statement =
                  sql.sql(query.toString()).param("limit", limit + 1);
              if (owner != null) {
                statement = statement.param("owner", owner);
              }
              if (beforeId != null) {
                statement = statement.param("before", beforeId);
              }
              return statement.query(SWEEP).list();
            });
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
    tx.executeWithoutResult(
        status ->
            sql.sql(TRIAL_COUNTS)
                .param("ids", sweepIds)
                .query(
                    row -> {
                      counts
                          .get(row.getString(1))
                          .put(JobState.valueOf(row.getString(2)), row.getLong(3));
                    }));
    return counts;
  }

  @Override
  public Map<String, BestTrial> best(Collection<String> sweepIds, BestScope scope) {
    if (sweepIds.isEmpty()) {
      return Map.of();
    }
    Map<String, BestTrial> best = new HashMap<>();
    tx.executeWithoutResult(
        status ->
            sql.sql(scope == BestScope.LAST ? BEST_LAST_OF : BEST_EVER_OF)
                .param("finite", Double.POSITIVE_INFINITY)
                .param("ids", sweepIds)
                .query(
                    row -> {
                      best.put(
                          row.getString("sweep_id"),
                          new BestTrial(
                              row.getString("id"),
                              row.getInt("trial"),
                              row.getString("parameters"),
                              row.getDouble("best_value"),
                              row.getObject("metrics_step", Long.class)));
                    }));
    return best;
  }

  @Override
  public TrialPage trials(TrialQuery query) {
    StringBuilder statement = new StringBuilder(TRIALS);
    if (query.state() != null) {
      statement.append(" and state = :state");
    }
    boolean byValue = query.order() != TrialOrder.CREATED;
    String value = query.scope() == BestScope.LAST ? "metric_value" : "metric_best";
    boolean ascending =
        query.order().ascendingValues(query.goal() == null ? Goal.MINIMIZE : query.goal());
    TrialCursor after = query.after();
    if (after != null) {
      if (!byValue) {
        statement.append(" and trial > :afterTrial");
      } else if (after.value() == null) {
        // Past the last row with a value: only those without one remain.
        statement.append(" and ").append(value).append(" is null and trial > :afterTrial");
      } else {
        statement
            .append(" and (")
            .append(value)
            .append(ascending ? " > " : " < ")
            .append(":afterValue or (")
            .append(value)
            .append(" = :afterValue and trial > :afterTrial) or ")
            .append(value)
            .append(" is null)");
      }
    }
    statement.append(
        byValue
            ? " order by " + value + " " + (ascending ? "asc" : "desc") + " nulls last, trial"
            : " order by trial");
    statement.append(" limit :limit");
    List<TrialRow> rows =
        tx.execute(
            status -> {
              JdbcClient.StatementSpec spec =
                  sql.sql(statement.toString())
                      .param("sweep", query.sweepId())
                      .param("limit", query.limit() + 1);
              if (query.state() != null) {
                spec = spec.param("state", query.state().name());
              }
              if (after != null) {
                spec = spec.param("afterTrial", after.trial());
                if (byValue && after.value() != null) {
                  spec = spec.param("afterValue", after.value());
                }
              }
              return spec.query(TRIAL).list();
            });
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
          queued.requireQueuedRoom(sweep.owner(), 1, maxQueued, trial.createdAt());
          trialTable.insertQueued(List.of(trial));
          sql.sql(ONE_MORE_TRIAL).param("id", sweepId).update();
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
            sql.sql(CLOSE).param("id", sweepId).update();
          }
          sql.sql(STAMP_FINISHED_ONE).param("now", at(now)).param("id", sweepId).update();
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
          List<String> running = trialTable.cancelLiveTrialsOf(sweepId, now);
          sql.sql(CANCEL).param("now", at(now)).param("id", sweepId).update();
          return running;
        });
  }

  private long unfinishedTrials(String sweepId) {
    return sql.sql(UNFINISHED_TRIALS_OF).param("id", sweepId).query(Long.class).single();
  }

  /** A cancelled sweep takes no more trials and is not closed: it ended otherwise. */
  private static void requireNotCancelled(Sweep sweep) {
    if (sweep.isCancelled()) {
      throw new SweepConflictException("sweep " + sweep.id() + " was cancelled");
    }
  }

  /** The sweep's row, locked until the transaction ends. */
  private Sweep lock(String sweepId) {
    return sql.sql(LOCK)
        .param("id", sweepId)
        .query(SWEEP)
        .optional()
        .orElseThrow(() -> new SweepNotFoundException(sweepId));
  }

  @Override
  public int stampFinished(Instant now) {
    Integer stamped = tx.execute(status -> sql.sql(STAMP_FINISHED).param("now", at(now)).update());
    return stamped == null ? 0 : stamped;
  }

  @Override
  public Optional<Sweep> stampFinished(String sweepId, Instant now) {
    tx.executeWithoutResult(
        status -> sql.sql(STAMP_FINISHED_ONE).param("now", at(now)).param("id", sweepId).update());
    return find(sweepId);
  }

  /**
   * The sweep meters' figures in three grouped queries: trials per unfinished sweep and state, the
   * value of each unfinished sweep's best trial (as its view names it), and the running jobs of
   * {@code node}. Not part of {@link SweepStore}: only this node's meters read it, at their pace.
   */
  public SweepFigures figures(String node) {
    Map<String, Map<JobState, Long>> trials = new HashMap<>();
    sql.sql(UNFINISHED_TRIALS)
        .query(
            row -> {
              trials
                  .computeIfAbsent(row.getString(1), sweep -> new HashMap<>())
                  .put(JobState.valueOf(row.getString(2)), row.getLong(3));
            });
    Map<String, Double> best = new HashMap<>();
    sql.sql(UNFINISHED_BEST)
        .param("finite", Double.POSITIVE_INFINITY)
        .query(
            row -> {
              double value = row.getDouble(2);
              if (!row.wasNull()) {
                best.put(row.getString(1), value);
              }
            });
    List<SweepFigures.RunningJob> running =
        sql.sql(RUNNING_ON)
            .param("node", node)
            .query(
                (row, n) ->
                    new SweepFigures.RunningJob(
                        row.getString(1), row.getString(2), row.getString(3), row.getString(4)))
            .list();
    return new SweepFigures(trials, best, running);
  }

  // --- the limits on running trials, in the caller's transaction (JpaJobStore's queue and claims)

  /**
   * Locks the rows of the limited sweeps that these jobs are trials of, {@code FOR UPDATE} in id
   * order, and counts their running trials. Two nodes claiming trials of one sweep thus take turns:
   * the second counts what the first started once it has committed.
   */
  Map<String, TrialSlots> lockTrialSlotsOf(Collection<String> jobIds) {
    if (jobIds.isEmpty()) {
      return Map.of();
    }
    Map<String, Integer> limits = new LinkedHashMap<>();
    sql.sql(LOCK_LIMITED_OF_JOBS)
        .param("jobIds", List.copyOf(jobIds))
        .query(
            row -> {
              limits.put(row.getString(1), row.getInt(2));
            });
    if (limits.isEmpty()) {
      return Map.of();
    }
    Map<String, TrialSlots> slots = new LinkedHashMap<>();
    limits.forEach((sweep, max) -> slots.put(sweep, new TrialSlots(max, 0)));
    sql.sql(RUNNING_TRIALS)
        .param("ids", List.copyOf(limits.keySet()))
        .query(
            row -> {
              String sweep = row.getString(1);
              slots.put(sweep, new TrialSlots(limits.get(sweep), row.getLong(2)));
            });
    return slots;
  }

  /** The limited sweeps among these, with their running trials now; nothing is locked. */
  Map<String, TrialSlots> trialSlots(Collection<String> sweepIds) {
    if (sweepIds.isEmpty()) {
      return Map.of();
    }
    return slots(sql.sql(TRIAL_SLOTS).param("ids", List.copyOf(sweepIds)));
  }

  /** The unfinished limited sweeps that have as many trials running as they may. */
  Map<String, TrialSlots> fullSweeps() {
    return slots(sql.sql(FULL));
  }

  /** Rows of (sweep, max_concurrent, running). */
  private static Map<String, TrialSlots> slots(JdbcClient.StatementSpec statement) {
    Map<String, TrialSlots> slots = new LinkedHashMap<>();
    statement.query(
        row -> {
          slots.put(row.getString(1), new TrialSlots(row.getInt(2), row.getLong(3)));
        });
    return slots;
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
