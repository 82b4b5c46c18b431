package io.gpuq.storage;

import io.gpuq.fairshare.Held;
import io.gpuq.job.ClaimedJob;
import io.gpuq.job.Framework;
import io.gpuq.job.HostResources;
import io.gpuq.job.JobFilter;
import io.gpuq.job.JobPlacement;
import io.gpuq.job.JobState;
import io.gpuq.job.JobTransition;
import io.gpuq.job.JobTransition.Change;
import io.gpuq.job.QueryTimeouts;
import io.gpuq.job.QueuedJob;
import io.gpuq.job.StopSignal;
import io.gpuq.job.SweepTrial;
import io.gpuq.job.TimeoutSignal;
import io.gpuq.text.Cpus;
import java.math.BigDecimal;
import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import javax.sql.DataSource;
import org.springframework.boot.convert.DurationStyle;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.core.ResultSetExtractor;
import org.springframework.jdbc.core.RowMapper;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.jdbc.core.support.AbstractSqlTypeValue;
import org.springframework.jdbc.support.JdbcUtils;
import org.springframework.jdbc.support.MetaDataAccessException;

/**
 * The scheduler's SQL on the table {@code jobs} (and its attempts' rows, which a claim and a
 * success write beside it): the queue's heads per owner, what each owner's running jobs hold, and
 * the hot transitions, claiming and succeeding, written without loading the job. Runs in the
 * caller's transaction ({@code JpaJobStore}'s: a {@link JdbcClient} over the data source joins it,
 * on the JPA session's own connection).
 *
 * <p>A claim is one locking select of what the launch needs, then two batches, one of updates of
 * the jobs and one of inserts of their attempts. Measured on H2 with C1, a claim of eight jobs this
 * way costs about half the CPU of loading them and letting Hibernate flush them; a JPQL update and
 * a persisted attempt per job cost more than either (each goes through Spring Data, Hibernate's
 * bulk-update path and an identity insert of its own). What a transition writes is generated from
 * {@link JobTransition}'s description ({@link TransitionSql}, positional parameters), which the
 * entity applies too; the store contract compares what both store.
 */
public final class JobTable {

  // --- the queue's heads

  /**
   * The owners with queued jobs, found by skipping through the index {@code
   * jobs_queue_by_owner_and_kind} (V21) from one owner to the next: one seek per owner, however
   * many jobs each has queued. (Of either kind: the kind follows the owner in the index, and an
   * owner with none of the kind asked costs one empty seek.) H2 runs this step by step ({@link
   * #NEXT_OWNER}): its recursive queries materialise every step, and at 100 owners took 50 ms.
   */
  private static final String OWNERS =
      "with recursive o (owner) as ((select j.owner from jobs j where j.state = 'QUEUED'"
          + " order by j.owner limit 1) union all select (select j.owner from jobs j"
          + " where j.state = 'QUEUED' and j.owner > o.owner order by j.owner limit 1)"
          + " from o where o.owner is not null) select o.owner from o where o.owner is not null";

  /**
   * The first owner after this one with queued jobs (H2). The bound is {@code >=} the owner and a
   * NUL, the least string after it, because H2 starts an index range at its bound inclusive and
   * passes over the previous owner's entries one by one: with {@code >}, each step read all the
   * queued jobs of the owner before. ({@code ''}: the first owner.)
   */
  private static final String NEXT_OWNER =
      "select j.owner from jobs j where j.state = 'QUEUED' and j.owner >= :after"
          + " order by j.state, j.owner limit 1";

  /**
   * One owner's first queued jobs of one kind, in their scheduling order: a bounded seek in {@code
   * jobs_queue_by_owner_and_kind}, read from the index alone. Held jobs (issue 37: waiting for a
   * dependency) are passed over: they take no place and hold no one up. The order names the index's
   * columns from the first (equal here) so that H2 reads in index order and stops at the limit; by
   * {@code priority desc, id} alone it read and sorted all the owner's jobs.
   */
  private static final String OWNER_HEAD =
      "select j.owner, j.id, j.queued_at from jobs j where j.state = 'QUEUED' and j.gpu_job = :gpu"
          + " and j.owner = :owner and j.held = false"
          + " order by j.state, j.owner, j.gpu_job, j.priority desc, j.id limit :depth";

  /** {@link #OWNER_HEAD} without the trials of these sweeps (full ones). */
  private static final String OWNER_HEAD_WITHOUT_SWEEPS =
      "select j.owner, j.id, j.queued_at from jobs j where j.state = 'QUEUED' and j.gpu_job = :gpu"
          + " and j.owner = :owner and j.held = false"
          + " and (j.sweep_id is null or j.sweep_id not in (:withoutSweeps))"
          + " order by j.state, j.owner, j.gpu_job, j.priority desc, j.id limit :depth";

  /** {@link #OWNER_HEAD} for many owners in one statement (PostgreSQL). */
  private static final String OWNERS_HEADS =
      "select h.owner, h.id, h.queued_at from unnest(cast(:owners as varchar[])) with ordinality"
          + " as o (owner, n) cross join lateral (select j.owner, j.id, j.queued_at, j.priority"
          + " from jobs j where j.state = 'QUEUED' and j.gpu_job = :gpu and j.owner = o.owner"
          + " and j.held = false"
          + " and (j.sweep_id is null or j.sweep_id <> all (cast(:withoutSweeps as varchar[])))"
          + " order by j.priority desc, j.id limit :depth) h order by o.n, h.priority desc, h.id";

  /**
   * The chosen jobs' rows, by primary key alone. With {@code j.state = 'QUEUED'} beside the ids, H2
   * read every queued row from an index on the state and tested each against the whole list: at
   * 100,000 queued a pass took seconds. A job that left the queue since its key was read is left
   * out here by its state.
   */
  private static final String QUEUED_BY_ID =
      "select j.id, j.owner, j.gpus, j.gpu_memory_bytes, j.gpu_fraction, j.priority, j.queued_at,"
          + " j.node_selector, j.sweep_id, j.cpus, j.memory_bytes, j.state, j.held, j.preemptible"
          + " from jobs j where j.id in (:ids)";

  /**
   * A whole-GPU job asks for neither bytes nor a fraction; every GPU job's attempt records its
   * budget per GPU. The columns are {@link Held}'s, in its order: GPU memory, whole GPUs, CPU
   * slots, cores, host memory (a job that reserved none counts none), running jobs, the GPUs of
   * fraction jobs as their fractions, and the budgets of jobs that asked for bytes.
   */
  private static final String HELD_COLUMNS =
      "select j.owner,"
          + " sum(case when j.gpus > 0 then a.budget_bytes * j.gpus else 0 end),"
          + " sum(case when j.gpus > 0 and j.gpu_memory_bytes is null"
          + " and j.gpu_fraction is null then j.gpus else 0 end),"
          + " sum(case when j.gpus = 0 then 1 else 0 end),"
          + " sum(j.cpus),"
          + " sum(coalesce(j.memory_bytes, 0)),"
          + " count(*),"
          + " sum(case when j.gpus > 0 and j.gpu_fraction is not null"
          + " then j.gpus * j.gpu_fraction else 0 end),"
          + " sum(case when j.gpus > 0 and j.gpu_memory_bytes is not null"
          + " then a.budget_bytes * j.gpus else 0 end)"
          + " from jobs j join job_attempts a on a.job_id = j.id and a.attempt = j.attempt";

  /** What each owner's running jobs hold, over every node. */
  private static final String HELD_BY_OWNER =
      HELD_COLUMNS + " where j.state = 'RUNNING' group by j.owner";

  /** What each owner's jobs running on one node hold. */
  private static final String HELD_BY_OWNER_ON =
      HELD_COLUMNS + " where j.state = 'RUNNING' and j.node = :node group by j.owner";

  // --- the hot transitions

  private static final JobTransition START = JobTransition.START;
  private static final TransitionSql START_SQL = new TransitionSql(START);
  private static final TransitionSql SUCCEED_SQL = new TransitionSql(JobTransition.SUCCEED);
  private static final JsonColumns.StringList COMMAND = new JsonColumns.StringList();
  private static final JsonColumns.StringMap ENV = new JsonColumns.StringMap();
  private static final JsonColumns.StringMap SELECTOR = new JsonColumns.StringMap();

  /**
   * Locks those of these jobs that START may leave and that no other transaction holds, and reads
   * what launching them needs, in one statement: of several nodes claiming one job at once, one
   * wins and the others move on at once instead of queueing on its lock. A plain statement, not a
   * Hibernate query: mapping a native query or planning a JPQL projection cost the scheduler more
   * CPU than the database's own work.
   */
  private static final String LOCK_TO_START =
      "select id, owner, attempt, command, working_dir, env, framework, timeout_millis, created_at,"
          + " queued_at, sweep_id, trial, parameters, cpus, memory_bytes, preload, timeout_signal,"
          + " timeout_signal_before_millis from jobs where state in (:sources) and id in (:ids)"
          + " for update skip locked";

  private static final List<String> START_SOURCES =
      START.sources().stream().map(JobState::name).toList();

  private static final String START_JOB = START_SQL.updateJob(false);
  private static final String INSERT_ATTEMPT = START_SQL.insertAttempt();
  // Not a job being preempted: its end requeues it whatever its exit code (issue 35).
  private static final String SUCCEED_JOB =
      SUCCEED_SQL.updateJob(true) + " and preempt_reason is null";
  private static final String SUCCEED_ATTEMPT = SUCCEED_SQL.updateAttempt();

  private final JdbcClient sql;

  /** For a claim's two batches (which {@link JdbcClient} does not write). */
  private final JdbcTemplate batches;

  private final DataSource dataSource;

  /** Whether the database is PostgreSQL, which runs the owners' seeks as one statement each. */
  private volatile Boolean postgres;

  /** For a page's ids: statements the database cancels at the listing's query timeout. */
  private final JdbcClient listing;

  /** With the default query timeout of the listing ({@link QueryTimeouts#DEFAULT}). */
  public JobTable(DataSource dataSource) {
    this(dataSource, DurationStyle.detectAndParse(QueryTimeouts.DEFAULT));
  }

  /**
   * @param listingTimeout how long the read of a page's ids may run ({@code
   *     gpuq.api.query-timeout}) before the database cancels it
   */
  public JobTable(DataSource dataSource, Duration listingTimeout) {
    this.dataSource = dataSource;
    this.batches = new JdbcTemplate(dataSource);
    this.sql = JdbcClient.create(batches);
    JdbcTemplate timed = new JdbcTemplate(dataSource);
    timed.setQueryTimeout(seconds(listingTimeout));
    this.listing = JdbcClient.create(timed);
  }

  /**
   * JDBC's query timeout is in whole seconds: the nearest, as Hibernate rounded the JPA hint in
   * milliseconds that this read used before, but at least one (none would mean no timeout).
   */
  private static int seconds(Duration timeout) {
    return (int) Math.max(1, Math.min(Integer.MAX_VALUE, Math.round(timeout.toMillis() / 1000.0)));
  }

  /**
   * The statements that find the owners with queued jobs and read one owner's head, by kind: for
   * their plans to be checked.
   */
  public static List<String> queueHeadStatements() {
    return List.of(OWNERS, NEXT_OWNER, OWNER_HEAD, OWNERS_HEADS);
  }

  /** The statement that reads the rows a pass picked, {@code :ids} for their ids: for its plan. */
  public static String pickedRowsStatement() {
    return QUEUED_BY_ID;
  }

  private record Key(String owner, String id, Instant queuedAt, int rank) {}

  /**
   * Every owner's first job, then every owner's second, and so on; equal ranks by the time the job
   * was queued, so that when more owners have jobs than a pass takes, the owners whose next job has
   * waited longest come first (as fair share breaks its ties), and none is left out for good.
   */
  private static final Comparator<Key> BY_RANK =
      Comparator.comparingInt(Key::rank).thenComparing(Key::queuedAt).thenComparing(Key::id);

  /**
   * The first {@code perOwner} queued jobs of each owner of one kind, at most {@code limit} in all
   * ({@link io.gpuq.job.JobStore#queueHead(int, int, int, int)}), without the trials of these
   * sweeps.
   */
  List<QueuedJob> queueHeadsByOwner(
      boolean gpu, int perOwner, int limit, Collection<String> withoutSweeps) {
    if (limit <= 0 || perOwner <= 0) {
      return List.of();
    }
    List<Key> keys = firstJobsOfEachOwner(gpu, perOwner, limit, List.copyOf(withoutSweeps));
    keys.sort(BY_RANK);
    List<Key> chosen = keys.subList(0, Math.min(limit, keys.size()));
    if (chosen.isEmpty()) {
      return List.of();
    }
    Map<String, QueuedJob> byId = new HashMap<>();
    sql.sql(QUEUED_BY_ID)
        .param("ids", chosen.stream().map(Key::id).toList())
        .query(
            row -> {
              if ("QUEUED".equals(row.getString(12)) && !row.getBoolean(13)) {
                QueuedJob job = queuedJob(row);
                byId.put(job.id(), job);
              }
            });
    List<QueuedJob> heads = new ArrayList<>(chosen.size());
    for (Key key : chosen) {
      QueuedJob job = byId.get(key.id());
      if (job != null) {
        heads.add(job);
      }
    }
    return heads;
  }

  /**
   * The first jobs of every owner with queued jobs of this kind, ranked within their owner: enough
   * of them that the first {@code limit} by {@link #BY_RANK} are among them. Each owner is read to
   * the same depth, a share of the limit; the owners with fewer jobs than that leave the rest of it
   * to the others, whose next round reads deeper. So a round reads about {@code limit} keys plus
   * one per owner, and an owner's 10,000 queued jobs cost no more than their first few.
   */
  private List<Key> firstJobsOfEachOwner(
      boolean gpu, int perOwner, int limit, List<String> withoutSweeps) {
    boolean onPostgres = isPostgres();
    List<String> owners = onPostgres ? sql.sql(OWNERS).query(String.class).list() : ownersByStep();
    Map<String, List<Key>> read = new LinkedHashMap<>();
    List<String> deeper = owners;
    int depth = 0;
    while (!deeper.isEmpty()) {
      int covered = 0;
      for (List<Key> of : read.values()) {
        covered += Math.min(of.size(), depth);
      }
      int share = -Math.floorDiv(covered - limit, deeper.size()); // rounded up
      depth = Math.min(perOwner, depth + Math.max(1, share));
      Map<String, List<Key>> round =
          onPostgres
              ? headsInOneStatement(gpu, deeper, depth, withoutSweeps)
              : headsOneByOne(gpu, deeper, depth, withoutSweeps);
      read.putAll(round);
      List<String> next = new ArrayList<>();
      covered = 0;
      for (List<Key> of : read.values()) {
        covered += Math.min(of.size(), depth);
      }
      if (covered < limit && depth < perOwner) {
        for (String owner : deeper) {
          if (round.getOrDefault(owner, List.of()).size() == depth) {
            next.add(owner);
          }
        }
      }
      deeper = next;
    }
    List<Key> keys = new ArrayList<>();
    read.values().forEach(keys::addAll);
    return keys;
  }

  private boolean isPostgres() {
    Boolean known = postgres;
    if (known == null) {
      try {
        known =
            "PostgreSQL"
                .equals(
                    JdbcUtils.extractDatabaseMetaData(
                        dataSource, DatabaseMetaData::getDatabaseProductName));
      } catch (MetaDataAccessException e) {
        throw new IllegalStateException("the database's name could not be read", e);
      }
      postgres = known;
    }
    return known;
  }

  /** The owners with queued jobs, one seek each (H2). */
  private List<String> ownersByStep() {
    List<String> owners = new ArrayList<>();
    String after = "";
    while (true) {
      List<String> next =
          sql.sql(NEXT_OWNER).param("after", after + '\0').query(String.class).list();
      if (next.isEmpty()) {
        return owners;
      }
      after = next.get(0);
      owners.add(after);
    }
  }

  private Map<String, List<Key>> headsOneByOne(
      boolean gpu, List<String> owners, int depth, List<String> withoutSweeps) {
    Map<String, List<Key>> heads = new LinkedHashMap<>();
    for (String owner : owners) {
      JdbcClient.StatementSpec head =
          withoutSweeps.isEmpty()
              ? sql.sql(OWNER_HEAD)
              : sql.sql(OWNER_HEAD_WITHOUT_SWEEPS).param("withoutSweeps", withoutSweeps);
      heads.put(
          owner,
          head.param("gpu", gpu)
              .param("owner", owner)
              .param("depth", depth)
              .query((ResultSetExtractor<List<Key>>) JobTable::keys));
    }
    return heads;
  }

  private Map<String, List<Key>> headsInOneStatement(
      boolean gpu, List<String> owners, int depth, List<String> withoutSweeps) {
    Map<String, List<Key>> heads = new LinkedHashMap<>();
    owners.forEach(owner -> heads.put(owner, new ArrayList<>()));
    List<Key> keys =
        sql.sql(OWNERS_HEADS)
            .param("owners", varchars(owners))
            .param("gpu", gpu)
            .param("withoutSweeps", varchars(withoutSweeps))
            .param("depth", depth)
            .query((ResultSetExtractor<List<Key>>) JobTable::keys);
    for (Key key : keys) {
      heads.get(key.owner()).add(key);
    }
    return heads;
  }

  /** A {@code varchar[]} parameter (PostgreSQL), made on the statement's own connection. */
  private static AbstractSqlTypeValue varchars(List<String> values) {
    return new AbstractSqlTypeValue() {
      @Override
      protected Object createTypeValue(Connection connection, int sqlType, String typeName)
          throws SQLException {
        return connection.createArrayOf("varchar", values.toArray());
      }
    };
  }

  /** Keys in each owner's scheduling order, each ranked within its owner from 1. */
  private static List<Key> keys(ResultSet row) throws SQLException {
    List<Key> keys = new ArrayList<>();
    String owner = null;
    int rank = 0;
    while (row.next()) {
      String of = row.getString(1);
      if (!of.equals(owner)) {
        owner = of;
        rank = 0;
      }
      keys.add(
          new Key(
              of, row.getString(2), row.getObject(3, OffsetDateTime.class).toInstant(), ++rank));
    }
    return keys;
  }

  private static QueuedJob queuedJob(ResultSet row) throws SQLException {
    long bytes = row.getLong(4);
    Long gpuMemoryBytes = row.wasNull() ? null : bytes;
    double fraction = row.getDouble(5);
    Double gpuFraction = row.wasNull() ? null : fraction;
    String selector = row.getString(8);
    long host = row.getLong(11);
    Long memoryBytes = row.wasNull() ? null : host;
    return new QueuedJob(
        row.getString(1),
        row.getString(2),
        row.getInt(3),
        gpuMemoryBytes,
        gpuFraction,
        row.getInt(6),
        row.getObject(7, OffsetDateTime.class).toInstant(),
        selector == null ? Map.of() : SELECTOR.convertToEntityAttribute(selector),
        row.getString(9),
        cpus(row.getBigDecimal(10)),
        memoryBytes,
        row.getBoolean(14));
  }

  /**
   * What the running jobs of each owner hold, over every node (or on {@code node} if not null): one
   * aggregate statement.
   */
  Map<String, Held> heldByOwner(String node) {
    JdbcClient.StatementSpec statement =
        node == null ? sql.sql(HELD_BY_OWNER) : sql.sql(HELD_BY_OWNER_ON).param("node", node);
    Map<String, Held> held = new LinkedHashMap<>();
    statement.query(
        row -> {
          held.put(
              row.getString(1),
              new Held(
                  row.getLong(2),
                  row.getLong(3),
                  row.getLong(4),
                  cpus(row.getBigDecimal(5)),
                  row.getLong(6),
                  row.getLong(7),
                  row.getDouble(8),
                  row.getLong(9)));
        });
    return held;
  }

  /**
   * Locks those of these jobs that may start ({@link JobTransition#START}) and that no other
   * transaction holds, {@code FOR UPDATE SKIP LOCKED}, and reads what launching them needs, in one
   * statement. This is how a node claims: of several nodes claiming one job at once, one wins and
   * the others move on at once instead of queueing on its lock.
   */
  List<ClaimedJob> lockToStart(Collection<String> ids) {
    if (ids.isEmpty()) {
      return List.of();
    }
    return sql.sql(LOCK_TO_START)
        .param("sources", START_SOURCES)
        .param("ids", List.copyOf(ids))
        .query(CLAIMED)
        .list();
  }

  private static final RowMapper<ClaimedJob> CLAIMED =
      (row, n) ->
          new ClaimedJob(
              row.getString("id"),
              row.getString("owner"),
              row.getInt("attempt"),
              COMMAND.convertToEntityAttribute(row.getString("command")),
              row.getString("working_dir"),
              ENV.convertToEntityAttribute(row.getString("env")),
              Framework.valueOf(row.getString("framework")),
              timeout(row.getObject("timeout_millis", Long.class)),
              instant(row, "created_at"),
              instant(row, "queued_at"),
              trial(row),
              new HostResources(
                  cpus(row.getBigDecimal("cpus")), row.getObject("memory_bytes", Long.class)),
              preload(row.getString("preload")),
              timeoutSignal(row));

  /** A job's cores as its {@code cpus} column holds them: an exact decimal (V23). */
  static BigDecimal decimal(Cpus cpus) {
    return new BigDecimal(cpus.toString());
  }

  /** The cores a {@code cpus} column (or a sum of them) holds. */
  static Cpus cpus(BigDecimal column) {
    return Cpus.exactly(column)
        .orElseThrow(() -> new IllegalStateException(column + " is no number of cores"));
  }

  private static List<String> preload(String column) {
    return column == null ? List.of() : COMMAND.convertToEntityAttribute(column);
  }

  private static TimeoutSignal timeoutSignal(ResultSet row) throws SQLException {
    String signal = row.getString("timeout_signal");
    Long before = row.getObject("timeout_signal_before_millis", Long.class);
    return signal == null || before == null
        ? null
        : new TimeoutSignal(StopSignal.valueOf(signal), Duration.ofMillis(before));
  }

  private static SweepTrial trial(ResultSet row) throws SQLException {
    String sweepId = row.getString("sweep_id");
    return sweepId == null
        ? null
        : new SweepTrial(sweepId, row.getInt("trial"), row.getString("parameters"));
  }

  private static Duration timeout(Long millis) {
    return millis == null ? null : Duration.ofMillis(millis);
  }

  private static Instant instant(ResultSet row, String column) throws SQLException {
    return row.getObject(column, OffsetDateTime.class).toInstant();
  }

  /**
   * Writes, for each of these jobs, {@link JobTransition#START} with its placement: the job's row,
   * guarded by the states the transition may leave, and its attempt's row.
   *
   * @return the jobs that started; a job in another state is left out, and left as it was
   */
  public List<ClaimedJob> start(
      List<ClaimedJob> jobs, Map<String, JobPlacement> placements, Instant now) {
    if (jobs.isEmpty()) {
      return List.of();
    }
    List<Object[]> updates = new ArrayList<>(jobs.size());
    for (ClaimedJob job : jobs) {
      updates.add(START_SQL.jobValues(start(placements, job, now), job.id(), null).toArray());
    }
    int[] moved = batches.batchUpdate(START_JOB, updates);
    List<ClaimedJob> started = new ArrayList<>(jobs.size());
    List<Object[]> inserts = new ArrayList<>(jobs.size());
    for (int i = 0; i < jobs.size(); i++) {
      // 0: no longer in a state START may leave. (A driver that does not count a batch's rows
      // answers SUCCESS_NO_INFO; H2 and PostgreSQL count them.)
      if (moved[i] == 0) {
        continue;
      }
      ClaimedJob job = jobs.get(i);
      inserts.add(
          START_SQL
              .attemptInsertValues(job.id(), job.attempt(), start(placements, job, now))
              .toArray());
      started.add(job);
    }
    if (!inserts.isEmpty()) {
      batches.batchUpdate(INSERT_ATTEMPT, inserts);
    }
    return started;
  }

  private static Change start(Map<String, JobPlacement> placements, ClaimedJob job, Instant now) {
    return Change.start(placements.get(job.id()), now);
  }

  /**
   * Writes {@link JobTransition#SUCCEED} on the job and its attempt, if the job is still in that
   * attempt and in a state the transition may leave.
   *
   * @return whether it moved; if not, nothing was written
   */
  boolean succeed(String jobId, int attempt, Integer exitCode, Instant now) {
    Change change = Change.end(exitCode, null, null, now);
    if (sql.sql(SUCCEED_JOB).params(SUCCEED_SQL.jobValues(change, jobId, attempt)).update() == 0) {
      return false;
    }
    sql.sql(SUCCEED_ATTEMPT)
        .params(SUCCEED_SQL.attemptUpdateValues(jobId, attempt, change))
        .update();
    return true;
  }

  // --- a page of the job listing

  /**
   * The ids of a page of the listing, newest first, one more than its limit (whether there is a
   * next page): by an index that serves the filter in id order and stops at the limit, whatever the
   * filter matches. The jobs themselves are loaded afterwards, by these ids ({@code
   * JpaJobStore.page}); loading entities by the filter itself would let Hibernate load associations
   * for the filter's every match.
   *
   * <p>A read that outlasts the listing's query timeout is cancelled by the database and thrown as
   * Spring's {@link org.springframework.dao.QueryTimeoutException}, which {@code JpaJobStore.page}
   * translates into gpuq's {@link io.gpuq.job.StoreTimeoutException}.
   *
   * <p>A label filter is one correlated {@code exists} on {@code job_labels} per further label. The
   * statement runs unchanged on PostgreSQL and on H2 in PostgreSQL mode; the indexes are V5's. Its
   * parts are added as the filter asks (its owner, its state, its cursor, each of its labels), the
   * order spelled for the index that serves the combination ({@link #newestFirst}).
   */
  List<String> pageIds(JobFilter filter) {
    List<Map.Entry<String, String>> labels = List.copyOf(filter.labels().entrySet());
    Map<String, Object> parameters = new HashMap<>();
    StringBuilder statement =
        labels.isEmpty()
            ? jobsNewestFirst(filter, parameters)
            : labelNewestFirst(filter, labels, parameters);
    parameters.put("limit", filter.limit() + 1);
    return listing.sql(statement.toString()).params(parameters).query(String.class).list();
  }

  private static StringBuilder jobsNewestFirst(JobFilter filter, Map<String, Object> parameters) {
    StringBuilder statement = new StringBuilder("select j.id from jobs j where 1 = 1");
    ownerAndState(filter, statement, parameters);
    if (filter.beforeId() != null) {
      statement.append(" and j.id < :before");
      parameters.put("before", filter.beforeId());
    }
    return statement.append(" order by ").append(newestFirst(filter)).append(" limit :limit");
  }

  /** The filter's owner and state as conditions on {@code jobs j}, each only when it is set. */
  private static void ownerAndState(
      JobFilter filter, StringBuilder statement, Map<String, Object> parameters) {
    if (filter.owner() != null) {
      statement.append(" and j.owner = :owner");
      parameters.put("owner", filter.owner());
    }
    if (filter.state() != null) {
      statement.append(" and j.state = :state");
      parameters.put("state", filter.state().name());
    }
  }

  /**
   * Driven from the first label's index entries, newest first, with the rest of the filter probed
   * per entry: a label (a sweep, a run) is usually rarer than a state or an owner, and probing
   * every job for a rare label read about 1,000 jobs per match (MillionJobsBench, H2). One table in
   * the outer read, not a join: with parameters instead of literals H2 may put {@code jobs} first
   * in a join and walk it whole.
   */
  private static StringBuilder labelNewestFirst(
      JobFilter filter, List<Map.Entry<String, String>> labels, Map<String, Object> parameters) {
    StringBuilder statement =
        new StringBuilder(
            "select l0.job_id from job_labels l0 where l0.label_key = :key0"
                + " and l0.label_value = :value0");
    parameters.put("key0", labels.get(0).getKey());
    parameters.put("value0", labels.get(0).getValue());
    if (filter.beforeId() != null) {
      statement.append(" and l0.job_id < :before");
      parameters.put("before", filter.beforeId());
    }
    if (filter.owner() != null || filter.state() != null) {
      statement.append(" and exists (select 1 from jobs j where j.id = l0.job_id");
      ownerAndState(filter, statement, parameters);
      statement.append(")");
    }
    for (int i = 1; i < labels.size(); i++) {
      statement.append(
          " and exists (select 1 from job_labels l where l.job_id = l0.job_id"
              + " and l.label_key = :key"
              + i
              + " and l.label_value = :value"
              + i
              + ")");
      parameters.put("key" + i, labels.get(i).getKey());
      parameters.put("value" + i, labels.get(i).getValue());
    }
    return statement.append(" order by ").append(LABEL_NEWEST_FIRST).append(" limit :limit");
  }

  /** Newest first among one label's jobs, spelled as V5's {@code job_labels_newest} index is. */
  private static final String LABEL_NEWEST_FIRST = "l0.label_key, l0.label_value, l0.job_id desc";

  /**
   * Newest first, spelled as the index that serves the filter is: H2 reads an index in order, and
   * stops at the limit, only when ORDER BY names its columns from the first, the equal ones too
   * (EXPLAIN, H2 2.4; otherwise it sorts every match, 800,000 for a state). PostgreSQL drops the
   * columns the filter holds equal, and reads the same index either way.
   */
  private static String newestFirst(JobFilter filter) {
    if (filter.owner() != null && filter.state() != null) {
      return "j.owner, j.state, j.id desc"; // jobs_owner_state_newest
    }
    if (filter.owner() != null) {
      return "j.owner desc, j.id desc"; // jobs_owner (owner, id), read backwards
    }
    if (filter.state() != null) {
      return "j.state, j.id desc"; // jobs_state_newest
    }
    return "j.id desc"; // the primary key, read backwards
  }
}
