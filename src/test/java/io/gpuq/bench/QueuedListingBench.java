package io.gpuq.bench;

import static io.gpuq.support.JobJson.aJob;

import io.gpuq.GpuqApplication;
import io.gpuq.support.HttpApi;
import io.gpuq.support.PostgresDatabase;
import io.gpuq.support.PostgresSupport;
import io.gpuq.support.TestAccounts;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import javax.sql.DataSource;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * Issue 24, item 4: a job's page and the job list with {@code queued} jobs waiting, each with a
 * {@code queuedReason} (target: p99 under 50 ms at 100,000 queued).
 *
 * <p>gpuq runs in this JVM (a Spring context, real HTTP), on H2 in file mode or the embedded
 * PostgreSQL. One owner's GPU jobs are queued for a node pool that does not exist, so that none
 * starts and every scheduling pass reads its lookahead (1,000) of them and finds each one's reason:
 * the jobs beyond the lookahead are the ones whose reason used to be counted in the whole queue.
 * The rows are copies of one submitted job, made in one {@code insert ... select} (ids in order).
 * The bench waits for a pass to have seen them all, then measures each request {@code samples}
 * times after {@code warmup} (one client; p50, p99, max, and the answers other than 200, which are
 * counted, not fatal: before the fix a listing could answer 503 after the query timeout).
 *
 * <p>{@code bench/run QueuedListingBench [queued=100000] [databases=h2,postgres] [samples=200]
 * [warmup=20]}
 */
public final class QueuedListingBench {

  private static final String ADMIN_TOKEN = "bench-admin-0123456789";
  private static final String OWNER_TOKEN = "bench-user-3-0123456789";
  private static final String OTHER_TOKEN = "bench-user-4-0123456789";

  record Request(String name, String path, String token) {}

  public static void main(String[] args) throws Exception {
    BenchArgs given = new BenchArgs(args);
    int queued = given.getInt("queued", 100_000);
    List<String> databases = List.of(given.get("databases", "h2").split(","));
    int samples = given.getInt("samples", 200);
    int warmup = given.getInt("warmup", 20);
    given.requireAllRead();
    System.out.printf(
        "QueuedListingBench: queued=%,d databases=%s samples=%d warmup=%d, %d CPUs, load %s%n",
        queued,
        databases,
        samples,
        warmup,
        Runtime.getRuntime().availableProcessors(),
        Files.readString(Path.of("/proc/loadavg")).trim());
    Path root =
        Files.createTempDirectory(
            Files.createDirectories(Path.of("target/bench-data")).toAbsolutePath(), "queued-");
    for (String database : databases) {
      round(database, queued, samples, warmup, root.resolve(database));
    }
    System.out.println("load at end: " + Files.readString(Path.of("/proc/loadavg")).trim());
    System.exit(0);
  }

  private static void round(String database, int queued, int samples, int warmup, Path dataDir)
      throws Exception {
    List<String> args = new ArrayList<>();
    PostgresDatabase pg = null;
    if (database.equals("postgres")) {
      pg = PostgresSupport.freshDatabase();
      args.add("--spring.profiles.active=postgres");
      args.add("--GPUQ_DB_URL=" + pg.jdbcUrl());
      args.add("--GPUQ_DB_USER=" + pg.username());
      args.add("--GPUQ_DB_PASSWORD=" + pg.password());
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
            "--gpuq.auth.tokens[2].name=user-4",
            "--gpuq.auth.tokens[2].token=" + OTHER_TOKEN,
            "--gpuq.auth.tokens[2].role=SUBMITTER",
            TestAccounts.runAsSelfArgument(),
            "--gpuq.worker.allow-shared-account=true",
            "--logging.level.root=WARN"));
    ConfigurableApplicationContext context =
        new SpringApplicationBuilder(GpuqApplication.class).run(args.toArray(String[]::new));
    try {
      int port = Integer.parseInt(context.getEnvironment().getProperty("local.server.port"));
      HttpApi admin = new HttpApi(port, ADMIN_TOKEN);
      // A CPU-only job never starts here (no CPU slots); made a GPU job for another pool in SQL,
      // as admission would refuse a selector that no live node matches.
      String template = admin.as(OWNER_TOKEN).submit(aJob().command("true").cpuOnly().json());
      String other = admin.as(OTHER_TOKEN).submit(aJob().command("true").cpuOnly().json());
      long t0 = System.nanoTime();
      List<String> ids;
      try (Connection c = context.getBean(DataSource.class).getConnection()) {
        ids = seed(c, template, queued, pg != null);
      }
      System.out.printf(
          "%s: seeded %,d queued GPU jobs in %.1f s%n",
          database, queued, (System.nanoTime() - t0) / 1e9);
      String last = ids.get(ids.size() - 1);
      long waitStart = System.nanoTime();
      String reason;
      do {
        Thread.sleep(200);
        reason = reasonOf(admin, last);
      } while (reason.startsWith("not yet considered")
          && System.nanoTime() - waitStart < 120_000_000_000L);
      System.out.printf(
          "  the last queued job's reason: %s (the first's: %s)%n",
          reason, reasonOf(admin, ids.get(0)));

      Random random = new Random(7);
      List<Request> requests =
          List.of(
              new Request("admin list, limit=1", "/api/v1/jobs?limit=1", ADMIN_TOKEN),
              new Request("admin list, limit=30", "/api/v1/jobs?limit=30", ADMIN_TOKEN),
              new Request("admin list, limit=100", "/api/v1/jobs", ADMIN_TOKEN),
              new Request(
                  "admin list, state=QUEUED&limit=1000",
                  "/api/v1/jobs?state=QUEUED&limit=1000",
                  ADMIN_TOKEN),
              new Request("owner's own list (100)", "/api/v1/jobs", OWNER_TOKEN),
              new Request("get a queued job", null, ADMIN_TOKEN),
              new Request("another owner's get", "/api/v1/jobs/" + other, OTHER_TOKEN));
      System.out.println();
      System.out.printf(
          "| %s, %,d queued | p50 | p99 | max | answers other than 200 |%n", database, queued);
      System.out.println("| --- | ---: | ---: | ---: | ---: |");
      for (Request request : requests) {
        HttpApi api = admin.as(request.token());
        long[] nanos = new long[samples];
        int failed = 0;
        for (int i = -warmup; i < samples; i++) {
          String path =
              request.path() != null
                  ? request.path()
                  : "/api/v1/jobs/" + ids.get(random.nextInt(ids.size()));
          long start = System.nanoTime();
          int status = api.get(path).status();
          long took = System.nanoTime() - start;
          if (i >= 0) {
            nanos[i] = took;
            failed += status == 200 ? 0 : 1;
          }
        }
        Arrays.sort(nanos);
        System.out.printf(
            "| %s | %.1f ms | %.1f ms | %.1f ms | %d of %d |%n",
            request.name(),
            nanos[(int) Math.ceil(samples * 0.50) - 1] / 1e6,
            nanos[(int) Math.ceil(samples * 0.99) - 1] / 1e6,
            nanos[samples - 1] / 1e6,
            failed,
            samples);
      }
      System.out.println();
    } finally {
      context.close();
    }
  }

  /** A job's queuedReason, or what it answered instead of 200 (before the fix: 503 at 100,000). */
  private static String reasonOf(HttpApi api, String id) {
    HttpApi.Response response = api.get("/api/v1/jobs/" + id);
    return response.status() == 200
        ? response.json().path("queuedReason").asString()
        : "(answered " + response.status() + ")";
  }

  /**
   * Turns the template into a GPU job for a pool no node has, and copies it {@code queued - 1}
   * times in one statement, ids in order after it (its first 16 characters, then a counter).
   */
  private static List<String> seed(Connection c, String template, int queued, boolean postgres)
      throws Exception {
    try (PreparedStatement update =
        c.prepareStatement(
            "update jobs set gpus = 1, node_selector = '{\"pool\":\"elsewhere\"}' where id = ?")) {
      update.setString(1, template);
      update.executeUpdate();
    }
    List<String> columns = new ArrayList<>();
    try (Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("select * from jobs where 1 = 0")) {
      ResultSetMetaData meta = rs.getMetaData();
      for (int i = 1; i <= meta.getColumnCount(); i++) {
        String name = meta.getColumnName(i).toLowerCase(java.util.Locale.ROOT);
        if (!name.equals("id") && !name.equals("gpu_job")) { // gpu_job: computed (V21)
          columns.add(name);
        }
      }
    }
    String prefix = template.substring(0, 16);
    String list = String.join(", ", columns);
    String series = postgres ? "generate_series(1, ?) as r(x)" : "system_range(1, ?) as r(x)";
    try (PreparedStatement copy =
        c.prepareStatement(
            "insert into jobs (id, "
                + list
                + ") select cast(? as varchar(16)) || lpad(cast(r.x as varchar), 10, '0'), "
                + list
                + " from jobs t, "
                + series
                + " where t.id = ?")) {
      copy.setString(1, prefix);
      copy.setInt(2, queued - 1);
      copy.setString(3, template);
      copy.executeUpdate();
    }
    try (Statement s = c.createStatement()) {
      s.execute("analyze");
    }
    List<String> ids = new ArrayList<>();
    ids.add(template);
    for (int x = 1; x < queued; x++) {
      ids.add(prefix + String.format("%010d", x));
    }
    return ids;
  }
}
