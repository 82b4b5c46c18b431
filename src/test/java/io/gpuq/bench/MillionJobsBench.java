package io.gpuq.bench;

import static io.gpuq.support.JobJson.aJob;

import io.gpuq.GpuqApplication;
import io.gpuq.job.Caller;
import io.gpuq.job.JobIds;
import io.gpuq.job.JobPlacement;
import io.gpuq.job.JobService;
import io.gpuq.job.QueuedJob;
import io.gpuq.support.HttpApi;
import io.gpuq.support.PostgresDatabase;
import io.gpuq.support.PostgresSupport;
import io.gpuq.support.TestAccounts;
import java.io.BufferedWriter;
import java.io.IOException;
import java.io.Reader;
import java.io.Writer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import javax.sql.DataSource;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * A million finished jobs: what they cost the job list, a job's page, submissions and claims.
 *
 * <p>For each database (H2 in file mode as a single node runs it; the embedded PostgreSQL), two
 * rounds on a fresh database each: "empty" holds only {@code queued} queued jobs, "full" also
 * {@code finished} finished ones. gpuq runs in this JVM (a Spring context, real HTTP on a free
 * port, {@code cpu-slots=0} so that its scheduler claims nothing). The rows are seeded with JDBC
 * batches straight into the schema Flyway made: finished over the last 3 days (inside the default
 * retention, so nothing is deleted under the bench), 80 % SUCCEEDED, 15 % FAILED, 5 % CANCELLED,
 * one attempt each, 10 owners, labels {@code team} (10 values) and {@code project} (1,000 values).
 * Then ANALYZE, as autovacuum would have by then.
 *
 * <p>Measured, in this order: each listing {@code samples} times after {@code warmup} discarded
 * (p50 and p99 of the HTTP round trip, one client); GET of random finished (or, when empty, queued)
 * jobs; {@code submits} submissions over HTTP from 4 client threads (jobs/s); then claims/s
 * draining the whole queue through {@link JobService#markStarted} in claims of 8 from heads of 64,
 * the scheduler's path (as ClaimBench; no worker is started). The "ratio" is full / empty.
 *
 * <p>{@code bench/run MillionJobsBench [finished=1000000] [queued=10000] [databases=h2,postgres]
 * [samples=200] [warmup=20] [submits=2000] [order=empty,full,empty]}
 */
public final class MillionJobsBench {

  private static final String ADMIN_TOKEN = "bench-admin-0123456789";
  private static final String OWNER = "user-3";
  private static final String OWNER_TOKEN = "bench-user-3-0123456789";
  private static final String[] OWNERS =
      java.util.stream.IntStream.range(0, 10).mapToObj(i -> "user-" + i).toArray(String[]::new);
  private static final Caller BENCH = new Caller("bench", Caller.Role.ADMIN);
  private static final int SEED_CHUNK = 100_000;

  /** Each listing measured: its name and the request (admin token unless it is the owner's). */
  record Listing(String name, String path, boolean asOwner) {}

  static final List<Listing> LISTINGS =
      List.of(
          new Listing("no filter (limit 100)", "/api/v1/jobs", false),
          new Listing("no filter, limit 10", "/api/v1/jobs?limit=10", false),
          new Listing("state=SUCCEEDED", "/api/v1/jobs?state=SUCCEEDED", false),
          new Listing(
              "state=SUCCEEDED, limit 1000", "/api/v1/jobs?state=SUCCEEDED&limit=1000", false),
          new Listing("state=CANCELLED", "/api/v1/jobs?state=CANCELLED", false),
          new Listing("state=QUEUED", "/api/v1/jobs?state=QUEUED", false),
          new Listing("owner (submitter token)", "/api/v1/jobs", true),
          new Listing("owner + state=FAILED", "/api/v1/jobs?state=FAILED", true),
          new Listing("label team (10 %)", "/api/v1/jobs?label=team:team-4", false),
          new Listing("label project (0.1 %)", "/api/v1/jobs?label=project:p-123", false),
          new Listing("owner + label project", "/api/v1/jobs?label=project:p-123", true));

  record Settings(
      int finished,
      int queued,
      List<String> databases,
      int samples,
      int warmup,
      int submits,
      List<String> order) {

    static Settings parse(String[] args) {
      BenchArgs given = new BenchArgs(args);
      Settings s =
          new Settings(
              given.getInt("finished", 1_000_000),
              given.getInt("queued", 10_000),
              List.of(given.get("databases", "h2,postgres").split(",")),
              given.getInt("samples", 200),
              given.getInt("warmup", 20),
              given.getInt("submits", 2000),
              List.of(given.get("order", "empty,full,empty").split(",")));
      given.requireAllRead();
      return s;
    }
  }

  /** What one round measured: p50/p99 in ms per listing and for GET, rates per second. */
  record Round(
      Map<String, double[]> listings,
      double[] get,
      double submitsPerSecond,
      double claimsPerSecond,
      double seedSeconds) {

    @Override
    public String toString() {
      StringBuilder text = new StringBuilder();
      listings.forEach(
          (name, p) -> text.append(String.format("%s %.1f/%.1f ms; ", name, p[0], p[1])));
      return text.append(
              String.format(
                  "get %.1f/%.1f ms; %.0f submits/s; %.0f claims/s",
                  get[0], get[1], submitsPerSecond, claimsPerSecond))
          .toString();
    }
  }

  public static void main(String[] args) throws Exception {
    Settings settings = Settings.parse(args);
    System.out.printf(
        "MillionJobsBench: finished=%,d queued=%,d databases=%s samples=%d submits=%d, %d CPUs,"
            + " load average %s%n",
        settings.finished,
        settings.queued,
        settings.databases,
        settings.samples,
        settings.submits,
        Runtime.getRuntime().availableProcessors(),
        loadAverage());
    Path root =
        Files.createTempDirectory(
            Files.createDirectories(Path.of("target/bench-data")).toAbsolutePath(), "million-");
    for (String database : settings.databases) {
      // Each round is on a fresh database, in a JVM the rounds before it warmed: the default
      // order puts the full round between two empty ones, so that it is compared with a JVM both
      // colder and warmer than its own, not with whichever one the order favoured.
      List<Round> empties = new ArrayList<>();
      Round full = null;
      for (int i = 0; i < settings.order().size(); i++) {
        String kind = settings.order().get(i);
        Path dir = root.resolve(database + "-" + i + "-" + kind);
        switch (kind) {
          case "empty" -> empties.add(round(database, 0, settings, dir));
          case "full" -> full = round(database, settings.finished(), settings, dir);
          default -> throw new IllegalArgumentException("order lists empty and full, not " + kind);
        }
        // Printed at once: a million rows take long to seed on a loaded machine.
        System.out.printf(
            "%s %s: %s%n",
            database, kind, kind.equals("full") ? full : empties.get(empties.size() - 1));
      }
      if (full == null || empties.isEmpty()) {
        throw new IllegalArgumentException("order needs a full round and an empty one");
      }
      report(database, settings, empties, full);
    }
    System.out.println("load average at end: " + loadAverage());
    System.exit(0); // the embedded PostgreSQL's shutdown hook stops it
  }

  private static Round round(String database, int finished, Settings settings, Path dataDir)
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
            "--gpuq.auth.tokens[1].name=" + OWNER,
            "--gpuq.auth.tokens[1].token=" + OWNER_TOKEN,
            "--gpuq.auth.tokens[1].role=SUBMITTER",
            TestAccounts.runAsSelfArgument(),
            // Two owners, one account: no job runs here, the bench only lists them.
            "--gpuq.worker.allow-shared-account=true",
            "--logging.level.root=WARN"));
    ConfigurableApplicationContext context =
        new SpringApplicationBuilder(GpuqApplication.class).run(args.toArray(String[]::new));
    try {
      JobService service = context.getBean(JobService.class);
      DataSource dataSource = context.getBean(DataSource.class);
      long t0 = System.nanoTime();
      Seeded seeded;
      try (Connection connection =
          pg == null
              ? dataSource.getConnection()
              : java.sql.DriverManager.getConnection(
                  pg.jdbcUrl() + "?reWriteBatchedInserts=true", pg.username(), pg.password())) {
        seeded =
            seed(
                connection,
                service,
                finished,
                settings.queued,
                dataDir.resolveSibling(dataDir.getFileName() + "-csv"),
                pg != null);
      }
      double seedSeconds = (System.nanoTime() - t0) / 1e9;
      System.out.printf(
          "%s %s: seeded %,d finished + %,d queued jobs in %.0f s%n",
          database, finished == 0 ? "empty" : "full", finished, settings.queued, seedSeconds);
      if (finished > 0) {
        try (Connection connection = dataSource.getConnection()) {
          explain(connection, database);
        }
      }
      int port = Integer.parseInt(context.getEnvironment().getProperty("local.server.port"));
      HttpApi admin = new HttpApi(port, ADMIN_TOKEN);
      HttpApi owner = admin.as(OWNER_TOKEN);
      Map<String, double[]> listings = new LinkedHashMap<>();
      for (Listing listing : LISTINGS) {
        listings.put(
            listing.name(),
            percentiles(listing.asOwner() ? owner : admin, listing.path(), settings));
      }
      double[] get = getById(admin, seeded.someIds(), settings);
      double submits = submitRate(admin, settings.submits);
      double claims = claimRate(service, settings.queued + settings.submits);
      return new Round(listings, get, submits, claims, seedSeconds);
    } finally {
      context.close();
      // An H2 file of a million jobs is gigabytes, on a disk the bench shares.
      deleteTree(dataDir);
      deleteTree(dataDir.resolveSibling(dataDir.getFileName() + "-csv"));
    }
  }

  private static void deleteTree(Path root) throws IOException {
    if (!Files.exists(root)) {
      return;
    }
    try (var paths = Files.walk(root)) {
      for (Path path : paths.sorted(java.util.Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(path);
      }
    }
  }

  /** Ids of some seeded jobs, for GET: finished ones when there are, else queued ones. */
  record Seeded(List<String> someIds) {}

  private static final String JOB_COLUMNS =
      "id, owner, name, state, failure_reason, exit_code, attempt, command, env, framework, gpus,"
          + " priority, max_attempts, oom_growth, node, placement, created_at, queued_at,"
          + " started_at, finished_at, version, metrics_done";
  private static final String LABEL_COLUMNS = "job_id, label_key, label_value";
  private static final String ATTEMPT_COLUMNS =
      "job_id, attempt, node, placement, budget_bytes, started_at, finished_at, outcome,"
          + " failure_reason, exit_code";
  private static final DateTimeFormatter TIMESTAMP =
      DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss.SSSSSSxxx").withZone(ZoneOffset.UTC);

  /**
   * Writes the rows as CSV files of {@link #SEED_CHUNK} jobs, then loads each in bulk: COPY on
   * PostgreSQL, CSVREAD on H2. A JDBC batch insert took 22 minutes for a million jobs on H2 on this
   * loaded machine.
   */
  private static Seeded seed(
      Connection c, JobService service, int finished, int queued, Path csvDir, boolean postgres)
      throws SQLException, IOException {
    String placement = placementAsStored(c, service);
    Files.createDirectories(csvDir);
    Random random = new Random(42);
    Instant now = Instant.now();
    Instant firstFinished = now.minusSeconds(3 * 24 * 3600);
    MutableClock clock = new MutableClock(firstFinished);
    JobIds ids = new JobIds(clock);
    List<String> sample = new ArrayList<>();
    long spanMillis = now.toEpochMilli() - firstFinished.toEpochMilli() - 60_000;
    int total = finished + queued;
    // H2 keeps every index in step with each row CSVREAD inserts: with the secondary indexes in
    // place a million jobs loaded at 800-1,700 a second here. Built once afterwards, from the
    // rows in order, they cost a sort each.
    List<String> droppedIndexes = postgres ? List.of() : H2Indexes.dropSecondary(c);
    for (int chunkStart = 0; chunkStart < total; chunkStart += SEED_CHUNK) {
      Path jobsCsv = csvDir.resolve("jobs.csv");
      Path labelsCsv = csvDir.resolve("labels.csv");
      Path attemptsCsv = csvDir.resolve("attempts.csv");
      try (BufferedWriter jobs = Files.newBufferedWriter(jobsCsv);
          BufferedWriter labels = Files.newBufferedWriter(labelsCsv);
          BufferedWriter attempts = Files.newBufferedWriter(attemptsCsv)) {
        jobs.write(JOB_COLUMNS.replace(" ", "") + "\n");
        labels.write(LABEL_COLUMNS.replace(" ", "") + "\n");
        attempts.write(ATTEMPT_COLUMNS.replace(" ", "") + "\n");
        for (int i = chunkStart; i < Math.min(total, chunkStart + SEED_CHUNK); i++) {
          boolean done = i < finished;
          clock.set(
              done
                  ? firstFinished.plusMillis(spanMillis * i / Math.max(1, finished))
                  : now.minusSeconds(30).plusMillis(i - finished));
          String id = ids.next();
          Instant created = clock.instant();
          String state = done ? finishedState(random) : "QUEUED";
          String createdAt = TIMESTAMP.format(created);
          String startedAt = done ? TIMESTAMP.format(created.plusSeconds(5)) : "";
          String finishedAt = done ? TIMESTAMP.format(created.plusSeconds(30)) : "";
          String reason = state.equals("FAILED") ? "EXIT_CODE" : "";
          Integer exit = exitCode(state);
          String exitCode = exit == null ? "" : exit.toString();
          String quotedPlacement = done ? csvQuoted(placement) : "";
          csvLine(
              jobs,
              id,
              OWNERS[random.nextInt(OWNERS.length)],
              "bench-" + i,
              state,
              reason,
              exitCode,
              "1",
              csvQuoted("[\"true\"]"),
              "{}",
              "GENERIC",
              "0",
              "0",
              "1",
              "1.5",
              done ? "bench" : "",
              quotedPlacement,
              createdAt,
              createdAt,
              startedAt,
              finishedAt,
              "0",
              // As gpuq leaves a finished job once its metrics file is read (there is none).
              done ? "true" : "false");
          csvLine(labels, id, "team", "team-" + random.nextInt(10));
          csvLine(labels, id, "project", "p-" + random.nextInt(1000));
          if (done) {
            csvLine(
                attempts,
                id,
                "1",
                "bench",
                quotedPlacement,
                "0",
                startedAt,
                finishedAt,
                state,
                reason,
                exitCode);
          }
          if (sample.size() < 10_000 && (finished == 0 || done) && random.nextInt(100) == 0) {
            sample.add(id);
          }
        }
      }
      load(c, postgres, "jobs", JOB_COLUMNS, jobsCsv);
      load(c, postgres, "job_labels", LABEL_COLUMNS, labelsCsv);
      load(c, postgres, "job_attempts", ATTEMPT_COLUMNS, attemptsCsv);
      if ((chunkStart + SEED_CHUNK) % 200_000 == 0) {
        System.out.printf("  seeded %,d%n", Math.min(total, chunkStart + SEED_CHUNK));
      }
    }
    long indexStart = System.nanoTime();
    H2Indexes.create(c, droppedIndexes);
    if (!droppedIndexes.isEmpty()) {
      System.out.printf(
          "  rebuilt %d indexes in %.0f s%n",
          droppedIndexes.size(), (System.nanoTime() - indexStart) / 1e9);
    }
    try (Statement s = c.createStatement()) {
      s.execute("analyze");
    }
    return new Seeded(sample);
  }

  private static void load(Connection c, boolean postgres, String table, String columns, Path csv)
      throws SQLException, IOException {
    if (postgres) {
      try (Reader reader = Files.newBufferedReader(csv)) {
        c.unwrap(org.postgresql.PGConnection.class)
            .getCopyAPI()
            .copyIn(
                "copy " + table + " (" + columns + ") from stdin with (format csv, header true)",
                reader);
      }
      return;
    }
    // CSVREAD reads an empty field as NULL and the columns in the file's order (named in upper
    // case). It takes its file as a literal, not as a parameter; the path is the bench's own.
    try (Statement insert = c.createStatement()) {
      insert.executeUpdate(
          "insert into "
              + table
              + " ("
              + columns
              + ") select * from csvread('"
              + csv.toAbsolutePath().toString().replace("'", "''")
              + "', null, 'charset=UTF-8')");
    }
  }

  private static String csvQuoted(String value) {
    return "\"" + value.replace("\"", "\"\"") + "\"";
  }

  private static void csvLine(Writer out, String... fields) throws IOException {
    out.write(String.join(",", fields));
    out.write('\n');
  }

  private static Integer exitCode(String state) {
    return switch (state) {
      case "SUCCEEDED" -> 0;
      case "FAILED" -> 1;
      default -> null;
    };
  }

  private static String finishedState(Random random) {
    int r = random.nextInt(100);
    return r < 80 ? "SUCCEEDED" : r < 95 ? "FAILED" : "CANCELLED";
  }

  /** The placement column of a job the application started, to store on every seeded one. */
  private static String placementAsStored(Connection c, JobService service) throws SQLException {
    String id =
        service
            .submit(BENCH, io.gpuq.job.JobSpecs.aSpec().command("true").build(), null)
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

  /** The plans of the id reads a page sends (JobTable.pageIds), as each database chose them. */
  private static void explain(Connection c, String database) throws SQLException {
    Map<String, String> shapes = new LinkedHashMap<>();
    shapes.put("no filter", "select j.id from jobs j where 1 = 1 order by j.id desc limit 101");
    shapes.put(
        "state",
        "select j.id from jobs j where 1 = 1 and j.state = 'SUCCEEDED' order by j.state, j.id"
            + " desc limit 101");
    shapes.put(
        "owner",
        "select j.id from jobs j where 1 = 1 and j.owner = 'user-3' order by j.owner desc, j.id"
            + " desc limit 101");
    shapes.put(
        "owner + state",
        "select j.id from jobs j where 1 = 1 and j.owner = 'user-3' and j.state = 'FAILED'"
            + " order by j.owner, j.state, j.id desc limit 101");
    shapes.put(
        "label",
        "select l0.job_id from job_labels l0 where l0.label_key = 'project' and l0.label_value ="
            + " 'p-123' order by l0.label_key, l0.label_value, l0.job_id desc limit 101");
    shapes.put(
        "owner + label",
        "select l0.job_id from job_labels l0 where l0.label_key = 'project' and l0.label_value ="
            + " 'p-123' and exists (select 1 from jobs j where j.id = l0.job_id and j.owner ="
            + " 'user-3') order by l0.label_key, l0.label_value, l0.job_id desc limit 101");
    String prefix = database.equals("postgres") ? "explain (costs off) " : "explain ";
    for (Map.Entry<String, String> shape : shapes.entrySet()) {
      StringBuilder plan = new StringBuilder();
      try (Statement s = c.createStatement();
          ResultSet rs = s.executeQuery(prefix + shape.getValue())) {
        while (rs.next()) {
          plan.append("    ").append(rs.getString(1).replace("\n", "\n    ")).append('\n');
        }
      }
      System.out.printf("  plan, %s:%n%s", shape.getKey(), plan);
    }
  }

  private static double[] percentiles(HttpApi api, String path, Settings settings) {
    for (int i = 0; i < settings.warmup; i++) {
      expect200(api.get(path), path);
    }
    long[] nanos = new long[settings.samples];
    for (int i = 0; i < settings.samples; i++) {
      long t0 = System.nanoTime();
      expect200(api.get(path), path);
      nanos[i] = System.nanoTime() - t0;
    }
    return p50p99(nanos);
  }

  private static double[] getById(HttpApi api, List<String> ids, Settings settings) {
    Random random = new Random(7);
    int n = Math.max(settings.samples, 1000);
    for (int i = 0; i < settings.warmup; i++) {
      expect200(api.get("/api/v1/jobs/" + ids.get(random.nextInt(ids.size()))), "get");
    }
    long[] nanos = new long[n];
    JvmWork before = JvmWork.now();
    long pid = ProcessHandle.current().pid();
    CpuSnapshot cpuBefore = CpuSnapshot.of(pid);
    for (int i = 0; i < n; i++) {
      String path = "/api/v1/jobs/" + ids.get(random.nextInt(ids.size()));
      long t0 = System.nanoTime();
      expect200(api.get(path), path);
      nanos[i] = System.nanoTime() - t0;
    }
    // The client and gpuq share this JVM: its collections and allocations are both of theirs.
    System.out.printf("  get by id, %d requests: %s%n", n, JvmWork.now().since(before, n));
    // A request that waits for a core is slow whatever it does: on a loaded machine this, not
    // the request's own work, sets the tail.
    for (CpuSnapshot.GroupUse group : CpuSnapshot.of(pid).groupsSince(cpuBefore)) {
      if (group.onCpuNanos() + group.waitingNanos() > n * 10_000L) {
        System.out.printf(
            "  get by id, %s: %.2f ms on a CPU and %.2f ms waiting for one, a request%n",
            group.group(), group.onCpuNanos() / 1e6 / n, group.waitingNanos() / 1e6 / n);
      }
    }
    double[] p = p50p99(nanos);
    long[] sorted = nanos.clone();
    Arrays.sort(sorted);
    System.out.printf(
        "  get by id, slowest 12 (ms): %s%n",
        Arrays.stream(sorted, Math.max(0, n - 12), n)
            .mapToObj(t -> String.format("%.1f", t / 1e6))
            .toList());
    return p;
  }

  private static double submitRate(HttpApi api, int submits) throws InterruptedException {
    String json = aJob().name("bench-submit").command("true").cpuOnly().json();
    AtomicInteger next = new AtomicInteger();
    AtomicLong failures = new AtomicLong();
    List<Thread> threads = new ArrayList<>();
    long t0 = System.nanoTime();
    for (int t = 0; t < 4; t++) {
      Thread thread =
          new Thread(
              () -> {
                while (next.getAndIncrement() < submits) {
                  if (api.post("/api/v1/jobs", json).status() != 201) {
                    failures.incrementAndGet();
                  }
                }
              });
      thread.start();
      threads.add(thread);
    }
    for (Thread thread : threads) {
      thread.join();
    }
    double seconds = (System.nanoTime() - t0) / 1e9;
    if (failures.get() > 0) {
      throw new IllegalStateException(failures.get() + " submissions were not answered 201");
    }
    return submits / seconds;
  }

  private static double claimRate(JobService service, int expected) {
    JobPlacement placement = JobPlacement.cpuOnly("bench");
    int claimed = 0;
    long t0 = System.nanoTime();
    while (true) {
      List<QueuedJob> head = service.cpuQueueHead(64);
      if (head.isEmpty()) {
        break;
      }
      for (int i = 0; i < head.size(); i += 8) {
        Map<String, JobPlacement> wanted = new LinkedHashMap<>();
        for (QueuedJob job : head.subList(i, Math.min(head.size(), i + 8))) {
          wanted.put(job.id(), placement);
        }
        claimed += service.markStarted(wanted).size();
      }
    }
    double seconds = (System.nanoTime() - t0) / 1e9;
    if (claimed != expected) {
      throw new IllegalStateException("claimed " + claimed + " of " + expected + " queued jobs");
    }
    return claimed / seconds;
  }

  private static void expect200(HttpApi.Response response, String path) {
    if (response.status() != 200) {
      throw new IllegalStateException(path + " answered " + response.status() + ": " + response);
    }
  }

  private static double[] p50p99(long[] nanos) {
    long[] sorted = nanos.clone();
    Arrays.sort(sorted);
    return new double[] {
      sorted[(int) Math.ceil(sorted.length * 0.50) - 1] / 1e6,
      sorted[(int) Math.ceil(sorted.length * 0.99) - 1] / 1e6
    };
  }

  private static void report(String database, Settings settings, List<Round> empties, Round full) {
    System.out.println();
    System.out.printf(
        "%s: %,d queued (empty) vs %,d finished + %,d queued (full); rounds %s; seeding took %.0f"
            + " s%n",
        database,
        settings.queued(),
        settings.finished(),
        settings.queued(),
        settings.order(),
        full.seedSeconds());
    StringBuilder emptyHeads = new StringBuilder();
    for (int i = 0; i < empties.size(); i++) {
      emptyHeads.append(" empty ").append(i + 1).append(" p50 / p99 |");
    }
    System.out.println(
        "| measure |"
            + emptyHeads
            + " full p50 / p99 | target (full p99) | full p99 / mean empty p99 |");
    System.out.println("| --- |" + " ---: |".repeat(empties.size() + 3));
    for (Listing listing : LISTINGS) {
      String target =
          listing.path().contains("?state") || listing.path().contains("label") || listing.asOwner()
              ? "< 200 ms"
              : "< 50 ms";
      row(
          "list, " + listing.name(),
          empties.stream().map(e -> e.listings().get(listing.name())).toList(),
          full.listings().get(listing.name()),
          target);
    }
    row("get by id", empties.stream().map(Round::get).toList(), full.get(), "< 5 ms");
    System.out.println();
    StringBuilder rateHeads = new StringBuilder();
    for (int i = 0; i < empties.size(); i++) {
      rateHeads.append(" empty ").append(i + 1).append(" |");
    }
    System.out.println(
        "| rate |" + rateHeads + " full | full / mean of the empty rounds (target ≥ 0.80) |");
    System.out.println("| --- |" + " ---: |".repeat(empties.size() + 2));
    rate(
        "submissions/s (HTTP, 4 clients)",
        empties.stream().mapToDouble(Round::submitsPerSecond).toArray(),
        full.submitsPerSecond());
    rate(
        "claims/s (claims of 8, one claimer)",
        empties.stream().mapToDouble(Round::claimsPerSecond).toArray(),
        full.claimsPerSecond());
    System.out.println();
  }

  private static void row(String name, List<double[]> empties, double[] full, String target) {
    StringBuilder line = new StringBuilder("| " + name + " |");
    double emptyP99 = 0;
    for (double[] e : empties) {
      line.append(String.format(" %.1f / %.1f ms |", e[0], e[1]));
      emptyP99 += e[1] / empties.size();
    }
    line.append(
        String.format(
            " %.1f / %.1f ms | %s | %.2f |", full[0], full[1], target, full[1] / emptyP99));
    System.out.println(line);
  }

  private static void rate(String name, double[] empties, double full) {
    StringBuilder line = new StringBuilder("| " + name + " |");
    for (double e : empties) {
      line.append(String.format(" %,.0f |", e));
    }
    double mean = Arrays.stream(empties).average().orElseThrow();
    System.out.println(line.append(String.format(" %,.0f | %.2f |", full, full / mean)));
  }

  private static String loadAverage() {
    try {
      return Files.readString(Path.of("/proc/loadavg")).trim();
    } catch (java.io.IOException e) {
      return "?";
    }
  }

  /** A clock the seeding moves, so that each seeded id carries its job's creation time. */
  private static final class MutableClock extends Clock {
    private Instant now;

    MutableClock(Instant now) {
      this.now = now;
    }

    void set(Instant instant) {
      now = instant;
    }

    @Override
    public ZoneId getZone() {
      return ZoneOffset.UTC;
    }

    @Override
    public Clock withZone(ZoneId zone) {
      return this;
    }

    @Override
    public Instant instant() {
      return now;
    }
  }
}
