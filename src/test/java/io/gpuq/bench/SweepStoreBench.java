package io.gpuq.bench;

import io.gpuq.job.JobIds;
import io.gpuq.job.JobSpec;
import io.gpuq.job.JobSpecs;
import io.gpuq.job.NewJob;
import io.gpuq.job.SweepTrial;
import io.gpuq.storage.TrialTable;
import io.gpuq.support.PostgresDatabase;
import io.gpuq.support.PostgresSupport;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.flywaydb.core.Flyway;
import org.springframework.jdbc.datasource.SingleConnectionDataSource;

/**
 * The database's part of creating a 10,000-trial sweep, without HTTP, Spring or the service: the
 * sweep's row and {@link TrialTable#insertQueued} of 10,000 trials (four labels each, as {@code
 * SweepBench}'s grid), then the commit, on a fresh database migrated by the real migrations.
 *
 * <p>Prints, per round, the wall time and this thread's CPU time for the inserts and for the
 * commit. On H2 (embedded) the database works in this thread, so its CPU time is H2's own work and
 * holds up on a loaded machine where wall times do not; on PostgreSQL only the wall time says
 * anything about the server.
 *
 * <p>Variants, to see what a change of schema or of what is stored would save before making it:
 * {@code variant=baseline} (as gpuq stores trials), {@code variant=no-sweep-label} (the trials
 * without their {@code sweep=<id>} label row), {@code variant=no-sweep-fk} (H2 only: without the
 * foreign key {@code jobs.sweep_id -> sweeps}, whose index H2 makes besides {@code
 * jobs_sweep_trial}), {@code variant=template-labels} (only the template's label rows: the trials'
 * {@code sweep} and parameter labels not stored as rows), {@code variant=url:;CACHE_SIZE=262144}
 * (H2: settings appended to gpuq's URL), {@code variant=multi-row} (PostgreSQL: multi-row inserts
 * instead of {@code COPY}, as H2 gets), {@code variant=partial-indexes} (PostgreSQL: {@code
 * jobs_idempotency}, {@code jobs_finished} and {@code jobs_metrics_reading} only where their first
 * column is not null), {@code variant=drop-index:jobs_owner} (without that index: what it costs
 * each insert). On PostgreSQL it also prints the CPU time of the backend process serving the
 * connection (from {@code /proc}), the server's own work.
 *
 * <p>{@code bench/run SweepStoreBench [database=h2|postgres] [variant=baseline] [rounds=3]
 * [trials=10000]}
 */
public final class SweepStoreBench {

  private static final String H2_URL =
      ";MODE=PostgreSQL;DATABASE_TO_LOWER=TRUE;DEFAULT_NULL_ORDERING=HIGH;WRITE_DELAY=0";
  private static final String H2_GPUQ_SETTINGS = ";PAGE_SIZE=4096";
  private static final ThreadMXBean CPU = ManagementFactory.getThreadMXBean();

  private SweepStoreBench() {}

  public static void main(String[] argv) throws Exception {
    BenchArgs given = new BenchArgs(argv);
    String database = given.get("database", "h2");
    String variant = given.get("variant", "baseline");
    int rounds = given.getInt("rounds", 3);
    int trialCount = given.getInt("trials", 10_000);
    given.requireAllRead();

    String url;
    String user;
    String password;
    if (database.equals("h2")) {
      Path dir = Files.createTempDirectory("sweep-store-bench-");
      String settings = variant.startsWith("url:") ? variant.substring(4) : H2_GPUQ_SETTINGS;
      url = "jdbc:h2:file:" + dir + "/gpuq" + H2_URL + settings;
      user = "sa";
      password = "";
    } else if (database.equals("postgres")) {
      PostgresDatabase pg = PostgresSupport.freshDatabase();
      url = pg.jdbcUrl();
      user = pg.username();
      password = pg.password();
    } else {
      throw new IllegalArgumentException("database is h2 or postgres, not " + database);
    }
    Flyway.configure().dataSource(url, user, password).load().migrate();

    JobIds ids = new JobIds(Clock.systemUTC());
    long[] walls = new long[rounds];
    long[] insertCpu = new long[rounds];
    long[] commitCpu = new long[rounds];
    long[] serverCpu = new long[rounds];
    try (Connection opened = DriverManager.getConnection(url, user, password)) {
      Connection connection = variant.equals("multi-row") ? withoutCopy(opened) : opened;
      long backend = database.equals("postgres") ? backendPid(connection) : -1;
      if (variant.equals("no-sweep-fk")) {
        dropForeignKeysOf(connection, "jobs");
      }
      if (variant.equals("partial-indexes")) {
        partialIndexes(connection);
      }
      if (variant.startsWith("drop-index:")) {
        try (Statement statement = connection.createStatement()) {
          statement.execute("drop index " + variant.substring("drop-index:".length()));
        }
      }
      connection.setAutoCommit(false);
      // The table's statements on this one connection, in its transaction (committed below).
      TrialTable table = new TrialTable(new SingleConnectionDataSource(connection, true));
      for (int round = -1; round < rounds; round++) { // round -1: warm-up, discarded
        String sweepId = ids.next();
        List<NewJob> trials = trials(ids, sweepId, variant, trialCount);
        long t0 = System.nanoTime();
        long s0 = cpuOfProcess(backend);
        long c0 = CPU.getCurrentThreadCpuTime();
        insertSweepRow(connection, sweepId, trialCount);
        table.insertQueued(trials);
        long c1 = CPU.getCurrentThreadCpuTime();
        connection.commit();
        long c2 = CPU.getCurrentThreadCpuTime();
        long s1 = cpuOfProcess(backend);
        long t1 = System.nanoTime();
        if (round >= 0) {
          serverCpu[round] = s1 - s0;
          walls[round] = t1 - t0;
          insertCpu[round] = c1 - c0;
          commitCpu[round] = c2 - c1;
        }
      }
    }
    System.out.printf(
        "%s %s: %,d trials stored in one transaction: wall %s; CPU of this thread: inserts"
            + " %s, commit %s; CPU of the PostgreSQL backend %s; load average %s%n",
        database,
        variant,
        trialCount,
        ms(walls),
        ms(insertCpu),
        ms(commitCpu),
        backendPidKnown(database) ? ms(serverCpu) : "-",
        Files.readString(Path.of("/proc/loadavg")).trim());
    System.exit(0); // the embedded PostgreSQL's shutdown hook stops it
  }

  /** A 100 × 100 grid's trials as the service makes them: labels team, sweep, lr and seed. */
  private static List<NewJob> trials(JobIds ids, String sweepId, String variant, int count) {
    boolean sweepLabel = !variant.equals("no-sweep-label") && !variant.equals("template-labels");
    boolean parameterLabels = !variant.equals("template-labels");
    Instant now = Instant.now();
    List<NewJob> trials = new ArrayList<>(count);
    for (int i = 0; i < count; i++) {
      String lr = Double.toString(1e-5 * (i / 100 + 1));
      String seed = Integer.toString(i % 100);
      Map<String, String> labels = new LinkedHashMap<>();
      labels.put("team", "bench");
      if (sweepLabel) {
        labels.put("sweep", sweepId);
      }
      if (parameterLabels) {
        labels.put("lr", lr);
        labels.put("seed", seed);
      }
      JobSpec spec =
          JobSpecs.aSpec()
              .name("bench-grid")
              .command("python3", "train.py", "--lr=" + lr, "--seed=" + seed)
              .labels(labels)
              .build();
      String parameters = "{\"lr\":" + lr + ",\"seed\":" + seed + "}";
      trials.add(
          new NewJob(
              ids.next(),
              "bench",
              spec,
              null,
              new SweepTrial(sweepId, i, parameters),
              now,
              List.of(),
              false,
              List.of()));
    }
    return trials;
  }

  private static boolean backendPidKnown(String database) {
    return database.equals("postgres");
  }

  private static long backendPid(Connection connection) throws SQLException {
    try (Statement statement = connection.createStatement();
        ResultSet row = statement.executeQuery("select pg_backend_pid()")) {
      row.next();
      return row.getLong(1);
    }
  }

  /**
   * User and system CPU of a local process, in nanoseconds: the PostgreSQL backend that serves this
   * bench's connection, whose work a loaded machine's wall time hides; 0 without one.
   */
  private static long cpuOfProcess(long pid) throws java.io.IOException {
    if (pid < 0) {
      return 0;
    }
    String stat = Files.readString(Path.of("/proc/" + pid + "/stat"));
    String[] fields = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
    long ticks = Long.parseLong(fields[11]) + Long.parseLong(fields[12]); // utime, stime
    return ticks * 10_000_000L; // USER_HZ is 100 on Linux
  }

  /**
   * The connection as one that is no PostgreSQL connection to {@code TrialTable}: it then writes
   * multi-row inserts, as on H2, to compare them with its COPY in the same minutes.
   */
  private static Connection withoutCopy(Connection connection) {
    return (Connection)
        java.lang.reflect.Proxy.newProxyInstance(
            Connection.class.getClassLoader(),
            new Class<?>[] {Connection.class},
            (proxy, method, args) -> {
              if (method.getName().equals("isWrapperFor")) {
                return false;
              }
              try {
                return method.invoke(connection, args);
              } catch (java.lang.reflect.InvocationTargetException e) {
                throw e.getCause();
              }
            });
  }

  private static void insertSweepRow(Connection connection, String sweepId, int trials)
      throws SQLException {
    try (PreparedStatement insert =
        connection.prepareStatement(
            "insert into sweeps (id, owner, name, method, definition, trial_count, closed,"
                + " created_at, version) values (?, 'bench', 'bench-grid', 'grid', '{}', ?, true,"
                + " current_timestamp, 0)")) {
      insert.setString(1, sweepId);
      insert.setInt(2, trials);
      insert.executeUpdate();
    }
  }

  /**
   * PostgreSQL only: the three indexes of jobs whose queries always name a value of their first
   * column made partial, so that a queued trial (no idempotency key, end or node) writes none.
   */
  private static void partialIndexes(Connection connection) throws SQLException {
    try (Statement statement = connection.createStatement()) {
      statement.execute("drop index jobs_idempotency");
      statement.execute(
          "create unique index jobs_idempotency on jobs (owner, idempotency_key)"
              + " where idempotency_key is not null");
      statement.execute("drop index jobs_finished");
      statement.execute(
          "create index jobs_finished on jobs (finished_at) where finished_at is not null");
      statement.execute("drop index jobs_metrics_reading");
      statement.execute(
          "create index jobs_metrics_reading on jobs (node, metrics_done) where node is not null");
    }
  }

  private static void dropForeignKeysOf(Connection connection, String table) throws SQLException {
    List<String> names = new ArrayList<>();
    try (PreparedStatement query =
        connection.prepareStatement(
            "select constraint_name from information_schema.table_constraints"
                + " where table_name = ? and constraint_type = 'FOREIGN KEY'")) {
      query.setString(1, table);
      try (ResultSet row = query.executeQuery()) {
        while (row.next()) {
          names.add(row.getString(1));
        }
      }
    }
    try (Statement statement = connection.createStatement()) {
      for (String name : names) {
        statement.execute("alter table " + table + " drop constraint \"" + name + "\"");
      }
    }
  }

  private static String ms(long[] nanos) {
    long[] sorted = nanos.clone();
    Arrays.sort(sorted);
    StringBuilder out = new StringBuilder();
    for (long value : nanos) {
      out.append(value / 1_000_000).append(' ');
    }
    return out.append("ms, p50 ")
        .append(sorted[sorted.length / 2] / 1_000_000)
        .append(" ms")
        .toString();
  }
}
