package io.gpuq.bench;

import io.gpuq.GpuqApplication;
import io.gpuq.job.Caller;
import io.gpuq.job.JobPlacement;
import io.gpuq.job.JobService;
import io.gpuq.support.HttpApi;
import io.gpuq.support.PostgresDatabase;
import io.gpuq.support.PostgresSupport;
import io.gpuq.support.TestAccounts;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import javax.sql.DataSource;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * The usage report (issue 37) over a million finished jobs: {@code GET /api/v1/usage} over the last
 * 30 days, by owner, day and label, as an admin and as a submitter, on H2 (file mode, as a single
 * node runs it) and the embedded PostgreSQL. Target: under 1 s.
 *
 * <p>Before the reports, the roll-up the usage roll-up duty keeps is brought up to two minutes ago
 * (timed), as it is on a running gpuq. The last report starts at a midnight within the jobs.
 *
 * <p>gpuq runs in this JVM (real HTTP on a free port, {@code cpu-slots=0}). The rows are generated
 * by the database itself ({@code insert ... select} over {@code system_range} on H2, {@code
 * generate_series} on PostgreSQL), in chunks of 100,000: finished over the last 3 days, 80 %
 * SUCCEEDED, 15 % FAILED, 5 % CANCELLED, one attempt each of 30 s after a wait of 0 to 599 s, 10
 * owners, a quarter of the jobs with a GPU (half of those a fraction of 0.5), labels {@code team}
 * (10 values) and {@code project} (1,000 values); then ANALYZE.
 *
 * <p>{@code bench/run UsageBench [jobs=1000000] [databases=h2,postgres] [samples=5] [warmup=2]}
 */
public final class UsageBench {

  private static final String ADMIN_TOKEN = "bench-admin-0123456789";
  private static final String OWNER_TOKEN = "bench-user-3-0123456789";
  private static final int CHUNK = 100_000;

  static final List<String> REPORTS =
      List.of(
          "by=owner",
          "by=day",
          "by=label:team",
          "by=label:project",
          "by=owner&from=" + java.time.LocalDate.now(java.time.ZoneOffset.UTC).minusDays(2));

  public static void main(String[] args) throws Exception {
    BenchArgs given = new BenchArgs(args);
    int jobs = given.getInt("jobs", 1_000_000);
    List<String> databases = List.of(given.get("databases", "h2,postgres").split(","));
    int samples = given.getInt("samples", 5);
    int warmup = given.getInt("warmup", 2);
    given.requireAllRead();
    System.out.printf(
        "UsageBench: jobs=%,d databases=%s samples=%d, %d CPUs, load average %s%n",
        jobs,
        databases,
        samples,
        Runtime.getRuntime().availableProcessors(),
        Files.readString(Path.of("/proc/loadavg")).trim());
    Path root =
        Files.createTempDirectory(
            Files.createDirectories(Path.of("target/bench-data")).toAbsolutePath(), "usage-");
    for (String database : databases) {
      round(database, jobs, samples, warmup, root.resolve(database));
    }
    System.out.println("load average at end: " + Files.readString(Path.of("/proc/loadavg")).trim());
    System.exit(0); // the embedded PostgreSQL's shutdown hook stops it
  }

  private static void round(String database, int jobs, int samples, int warmup, Path dataDir)
      throws Exception {
    List<String> args = new ArrayList<>();
    PostgresDatabase pg = null;
    if (database.equals("postgres")) {
      pg = PostgresSupport.freshDatabase();
      args.add("--spring.profiles.active=postgres");
      args.add("--GPUQ_DB_URL=" + pg.jdbcUrl());
      args.add("--GPUQ_DB_USER=" + pg.username());
      args.add("--GPUQ_DB_PASSWORD=" + pg.password());
    } else if (!database.equals("h2")) {
      throw new IllegalArgumentException("databases are h2 or postgres, not " + database);
    }
    args.addAll(
        List.of(
            "--server.port=0",
            "--gpuq.data-dir=" + dataDir,
            "--gpuq.node-name=bench",
            "--gpuq.gpu.backend=emulated",
            "--gpuq.scheduler.cpu-slots=0",
            "--gpuq.auth.tokens[0].name=bench",
            "--gpuq.auth.tokens[0].token=" + ADMIN_TOKEN,
            "--gpuq.auth.tokens[0].role=ADMIN",
            "--gpuq.auth.tokens[1].name=user-3",
            "--gpuq.auth.tokens[1].token=" + OWNER_TOKEN,
            "--gpuq.auth.tokens[1].role=SUBMITTER",
            TestAccounts.runAsSelfArgument(),
            "--gpuq.worker.allow-shared-account=true",
            "--logging.level.root=WARN"));
    ConfigurableApplicationContext context =
        new SpringApplicationBuilder(GpuqApplication.class).run(args.toArray(String[]::new));
    try {
      DataSource dataSource = context.getBean(DataSource.class);
      long t0 = System.nanoTime();
      try (Connection c = dataSource.getConnection()) {
        seed(c, context.getBean(JobService.class), jobs, pg != null);
      }
      System.out.printf(
          "%s: seeded %,d finished jobs in %.0f s%n",
          database, jobs, (System.nanoTime() - t0) / 1e9);
      // The duty may have started the roll-up while the table was still empty (its mark then
      // starts at two minutes ago), and every seeded end lies before that: it starts again here.
      for (int tries = 1; ; tries++) {
        try (Connection c = dataSource.getConnection()) {
          forgetTheRollUp(c);
          break;
        } catch (SQLException e) {
          // The duty's chunk holds the mark's lock longer than H2 waits: again, after it.
          if (tries == 100) {
            throw e;
          }
        }
      }
      // The roll-up duty's work, done here at once: every job up to two minutes ago.
      io.gpuq.job.UsageSource usage = context.getBean(io.gpuq.job.UsageSource.class);
      long r0 = System.nanoTime();
      Instant target = Instant.now().minusSeconds(120);
      Instant mark = null;
      while (!target.equals(mark)) {
        try {
          mark = usage.rollUpTo(target, java.time.Duration.ofHours(6));
        } catch (org.springframework.dao.DataAccessException e) {
          // The duty's chunk held the mark's lock longer than H2 waits: go on after it, as the
          // duty itself does.
          System.out.println(
              database + ": the mark was locked (" + e.getClass().getSimpleName() + "), again");
        }
      }
      System.out.printf(
          "%s: rolled up %,d finished jobs in %.1f s%n",
          database, jobs, (System.nanoTime() - r0) / 1e9);
      // The search for ends stored after the roll-up passed their time, as the duty runs it after
      // each roll-up (it finds none here: every end was committed before its time was rolled up).
      long l0 = System.nanoTime();
      int late = usage.rollUpLate();
      long l1 = System.nanoTime();
      usage.rollUpLate();
      System.out.printf(
          "%s: found %d ends stored late in %.0f ms (again: %.0f ms)%n",
          database, late, (l1 - l0) / 1e6, (System.nanoTime() - l1) / 1e6);
      int port = Integer.parseInt(context.getEnvironment().getProperty("local.server.port"));
      HttpApi admin = new HttpApi(port, ADMIN_TOKEN);
      HttpApi owner = admin.as(OWNER_TOKEN);
      for (String report : REPORTS) {
        for (HttpApi caller : List.of(admin, owner)) {
          String path = "/api/v1/usage?" + report;
          long[] nanos = new long[samples];
          String body = "";
          for (int i = -warmup; i < samples; i++) {
            long start = System.nanoTime();
            HttpApi.Response response = caller.get(path);
            long took = System.nanoTime() - start;
            if (response.status() != 200) {
              throw new IllegalStateException(path + ": " + response.status() + response.body());
            }
            body = response.body();
            if (i >= 0) {
              nanos[i] = took;
            }
          }
          Arrays.sort(nanos);
          long counted =
              HttpApi.JSON
                  .readTree(body)
                  .get("total")
                  .get("jobs")
                  .valueStream()
                  .mapToLong(n -> n.asLong())
                  .sum();
          System.out.printf(
              "%s %-18s as %-9s p50 %7.1f ms, max %7.1f ms (%d groups, %,d jobs in the total)%n",
              database,
              report,
              caller == admin ? "admin" : "submitter",
              nanos[samples / 2] / 1e6,
              nanos[samples - 1] / 1e6,
              HttpApi.JSON.readTree(body).get("groups").size(),
              counted);
        }
      }
    } finally {
      context.close();
      deleteTree(dataDir);
    }
  }

  private static void seed(Connection c, JobService service, int jobs, boolean postgres)
      throws SQLException {
    String placement = placementAsStored(c, service);
    Instant first = Instant.now().minus(3, ChronoUnit.DAYS).truncatedTo(ChronoUnit.SECONDS);
    long stepMillis = 3L * 24 * 3600 * 1000 / Math.max(1, jobs) - 1;
    List<String> dropped = postgres ? List.of() : H2Indexes.dropSecondary(c);
    String rows =
        postgres
            ? "generate_series(?, ?) as g(x)"
            : "system_range(cast(? as bigint), cast(? as bigint)) as g(x)";
    String id = "'B' || lpad(cast(x as varchar), 25, '0')";
    String created = at(postgres, "x * " + stepMillis);
    String started = at(postgres, "x * " + stepMillis + " + mod(x * 7919, 600) * 1000");
    String finished = at(postgres, "x * " + stepMillis + " + mod(x * 7919, 600) * 1000 + 30000");
    String insertJobs =
        "insert into jobs (id, owner, name, state, attempt, command, env, framework, gpus,"
            + " gpu_fraction, priority, max_attempts, oom_growth, node, placement, created_at,"
            + " queued_at, started_at, finished_at, version, metrics_done) select "
            + id
            + ", 'user-' || mod(x, 10), 'bench-' || x, case when mod(x, 20) < 16 then 'SUCCEEDED'"
            + " when mod(x, 20) < 19 then 'FAILED' else 'CANCELLED' end, 1, '[\"true\"]', '{}',"
            + " 'GENERIC', case when mod(x, 4) = 0 then 1 else 0 end, case when mod(x, 8) = 0"
            + " then 0.5 end, 0, 1, 1.5, 'bench', ?, "
            + created
            + ", "
            + created
            + ", "
            + started
            + ", "
            + finished
            + ", 0, true from "
            + rows;
    String insertAttempts =
        "insert into job_attempts (job_id, attempt, node, placement, budget_bytes, started_at,"
            + " finished_at, outcome) select "
            + id
            + ", 1, 'bench', ?, case when mod(x, 8) = 0 then 8589934592 else 0 end, "
            + started
            + ", "
            + finished
            + ", case when mod(x, 20) < 16 then 'SUCCEEDED' when mod(x, 20) < 19 then 'FAILED'"
            + " else 'CANCELLED' end from "
            + rows;
    String insertTeams =
        "insert into job_labels (job_id, label_key, label_value) select "
            + id
            + ", 'team', 'team-' || mod(x * 31, 10) from "
            + rows;
    String insertProjects =
        "insert into job_labels (job_id, label_key, label_value) select "
            + id
            + ", 'project', 'p-' || mod(x * 7, 1000) from "
            + rows;
    boolean autoCommit = c.getAutoCommit();
    c.setAutoCommit(true);
    for (int start = 1; start <= jobs; start += CHUNK) {
      int end = Math.min(jobs, start + CHUNK - 1);
      for (String sql : List.of(insertJobs, insertAttempts, insertTeams, insertProjects)) {
        try (PreparedStatement insert = c.prepareStatement(sql)) {
          int i = 1;
          if (sql == insertJobs || sql == insertAttempts) {
            insert.setString(i++, placement);
          }
          insert.setLong(i++, start);
          insert.setLong(i, end);
          insert.executeUpdate();
        }
      }
    }
    H2Indexes.create(c, dropped);
    try (Statement s = c.createStatement()) {
      s.execute("analyze");
    }
    c.setAutoCommit(autoCommit);
  }

  /** Empties the roll-up and puts its mark back to nothing rolled up, holding the mark's lock. */
  private static void forgetTheRollUp(Connection c) throws SQLException {
    boolean autoCommit = c.getAutoCommit();
    c.setAutoCommit(false);
    try (Statement s = c.createStatement()) {
      s.executeQuery("select rolled_up_to from usage_mark where id = 1 for update").close();
      s.execute("delete from usage_daily");
      s.execute("delete from usage_daily_labels");
      s.execute("delete from usage_counted");
      s.execute("update usage_mark set rolled_up_to = null, counted_from = null");
      c.commit();
    } catch (SQLException e) {
      c.rollback();
      throw e;
    } finally {
      c.setAutoCommit(autoCommit);
    }
  }

  private static String at(boolean postgres, String millis) {
    return postgres
        ? "timestamptz '"
            + Instant.now().minus(3, ChronoUnit.DAYS).truncatedTo(ChronoUnit.DAYS)
            + "' + ("
            + millis
            + ") * interval '1 millisecond'"
        : "dateadd(millisecond, "
            + millis
            + ", timestamp with time zone '"
            + Instant.now()
                .minus(3, ChronoUnit.DAYS)
                .truncatedTo(ChronoUnit.DAYS)
                .toString()
                .replace("T", " ")
                .replace("Z", "+00")
            + "')";
  }

  /** The placement column of a job the application started, to store on every seeded one. */
  private static String placementAsStored(Connection c, JobService service) throws SQLException {
    String id =
        service
            .submit(
                new Caller("bench", Caller.Role.ADMIN),
                io.gpuq.job.JobSpecs.aSpec().command("true").build(),
                null)
            .job()
            .id();
    service.markStarted(id, JobPlacement.cpuOnly("bench"));
    try (PreparedStatement read = c.prepareStatement("select placement from jobs where id = ?")) {
      read.setString(1, id);
      try (ResultSet rs = read.executeQuery()) {
        rs.next();
        String placement = rs.getString(1);
        try (PreparedStatement delete = c.prepareStatement("delete from jobs where id = ?")) {
          delete.setString(1, id);
          delete.executeUpdate();
        }
        return placement;
      }
    }
  }

  private static void deleteTree(Path root) throws java.io.IOException {
    if (!Files.exists(root)) {
      return;
    }
    try (var paths = Files.walk(root)) {
      for (Path path : paths.sorted(java.util.Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(path);
      }
    }
  }
}
