package io.gpuq.bench;

import io.gpuq.GpuqApplication;
import io.gpuq.support.HttpApi;
import io.gpuq.support.PostgresDatabase;
import io.gpuq.support.PostgresSupport;
import io.gpuq.support.SweepJson;
import io.gpuq.support.TestAccounts;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * A sweep of 10,000 trials: how long gpuq takes to accept it in one request, and to read its trials
 * table sorted by metric.
 *
 * <p>For each database (H2 in file mode as a single node runs it; the embedded PostgreSQL), on a
 * fresh database: gpuq runs in this JVM (a Spring context, real HTTP on a free port, {@code
 * cpu-slots=0} and no GPU trials, so that nothing starts). {@code rounds} times, one client POSTs a
 * 100 × 100 grid sweep (10,000 trials, each a queued job with four labels) and waits for the 201:
 * the time of each round trip, p50 and max, after one discarded warm-up round. Then the last
 * sweep's trials get random {@code metric_best}, {@code metric_value} and {@code metrics_step}
 * values by SQL (as the metrics reader would write them) and {@code GET /api/v1/sweeps/{id}/trials
 * ?order=metric} (the first page of 100, then a page deep in the table through its cursor) is read
 * {@code reads} times after {@code warmup}: p50 and p99 of the round trip.
 *
 * <p>Then every sweep created is cancelled, each in one request (all its trials queued): p50 and
 * max of the round trip (issue 24: 27 s before).
 *
 * <p>Targets (issue 14): a 10,000-trial sweep accepted in under 1 s; the trials table sorted by
 * metric, p99 under 100 ms.
 *
 * <p>{@code bench/run SweepBench [databases=h2,postgres] [rounds=5] [reads=300] [warmup=30]}
 */
public final class SweepBench {

  private static final String TOKEN = "bench-admin-0123456789";

  private SweepBench() {}

  public static void main(String[] argv) throws Exception {
    BenchArgs given = new BenchArgs(argv);
    List<String> databases = List.of(given.get("databases", "h2,postgres").split(","));
    int rounds = given.getInt("rounds", 5);
    int reads = given.getInt("reads", 300);
    int warmup = given.getInt("warmup", 30);
    given.requireAllRead();
    System.out.println("load average at start: " + loadAverage());
    for (String database : databases) {
      run(database, rounds, reads, warmup);
    }
    System.out.println("load average at end: " + loadAverage());
    System.exit(0); // the embedded PostgreSQL's shutdown hook stops it
  }

  private static void run(String database, int rounds, int reads, int warmup) throws Exception {
    List<String> args = new ArrayList<>();
    if (database.equals("postgres")) {
      PostgresDatabase pg = PostgresSupport.freshDatabase();
      args.add("--spring.profiles.active=postgres");
      args.add("--GPUQ_DB_URL=" + pg.jdbcUrl());
      args.add("--GPUQ_DB_USER=" + pg.username());
      args.add("--GPUQ_DB_PASSWORD=" + pg.password());
    } else if (!database.equals("h2")) {
      throw new IllegalArgumentException("databases are h2 or postgres, not " + database);
    }
    Path dataDir = Files.createTempDirectory("sweep-bench-" + database + "-");
    args.addAll(
        List.of(
            "--server.port=0",
            "--gpuq.data-dir=" + dataDir,
            "--gpuq.node-name=bench",
            "--gpuq.gpu.backend=emulated",
            "--gpuq.scheduler.cpu-slots=0",
            "--gpuq.auth.tokens[0].name=bench",
            "--gpuq.auth.tokens[0].token=" + TOKEN,
            "--gpuq.auth.tokens[0].role=ADMIN",
            // Every round's 10,000 trials stay queued (no slot): past the default max-queued-jobs.
            "--gpuq.auth.tokens[0].max-queued-jobs=1000000",
            TestAccounts.runAsSelfArgument(),
            "--logging.level.root=WARN"));
    ConfigurableApplicationContext context =
        new SpringApplicationBuilder(GpuqApplication.class).run(args.toArray(String[]::new));
    try {
      int port = Integer.parseInt(context.getEnvironment().getProperty("local.server.port"));
      HttpApi api = new HttpApi(port, TOKEN);
      String body = tenThousandTrials();
      String last = create(api, body); // warm-up, discarded
      List<String> created = new ArrayList<>(List.of(last));
      long[] creates = new long[rounds];
      for (int i = 0; i < rounds; i++) {
        long t0 = System.nanoTime();
        last = create(api, body);
        creates[i] = System.nanoTime() - t0;
        created.add(last);
      }
      Arrays.sort(creates);
      System.out.printf(
          "%s: 10,000-trial sweep created in one request: p50 %.0f ms, max %.0f ms (%d rounds)%n",
          database, ms(creates[rounds / 2]), ms(creates[rounds - 1]), rounds);

      fillMetrics(new JdbcTemplate(context.getBean(javax.sql.DataSource.class)), database, last);
      String first = "/api/v1/sweeps/" + last + "/trials?order=metric&limit=100";
      String cursor = deepCursor(api, first, 50);
      report(database, "trials table by metric, first page of 100", api, first, reads, warmup);
      report(
          database,
          "trials table by metric, page 51 of 100",
          api,
          first + "&cursor=" + cursor,
          reads,
          warmup);
      report(
          database,
          "trials table, state=QUEUED, -metric",
          api,
          "/api/v1/sweeps/" + last + "/trials?order=-metric&state=QUEUED&limit=100",
          reads,
          warmup);
      report(
          database,
          "the sweep's view (counts, best)",
          api,
          "/api/v1/sweeps/" + last,
          reads,
          warmup);
      // Issue 24: each sweep's 10,000 queued trials cancelled in one request.
      long[] cancels = new long[created.size()];
      for (int i = 0; i < created.size(); i++) {
        long t0 = System.nanoTime();
        cancel(port, created.get(i));
        cancels[i] = System.nanoTime() - t0;
      }
      Arrays.sort(cancels);
      System.out.printf(
          "%s: 10,000-trial sweep cancelled in one request: p50 %.0f ms, max %.0f ms (%d sweeps)%n",
          database,
          ms(cancels[cancels.length / 2]),
          ms(cancels[cancels.length - 1]),
          cancels.length);
    } finally {
      context.close();
    }
  }

  /** A grid of 100 × 100 values: 10,000 CPU-only trials. */
  private static String tenThousandTrials() {
    Object[] lr = new Object[100];
    Object[] seed = new Object[100];
    for (int i = 0; i < 100; i++) {
      lr[i] = 1e-5 * (i + 1);
      seed[i] = i;
    }
    return SweepJson.aGridSweep()
        .name("bench-grid")
        .command("python3", "train.py", "--lr={lr}", "--seed={seed}")
        .values("lr", lr)
        .values("seed", seed)
        .metric("val_loss", "minimize")
        .label("team", "bench")
        .json();
  }

  private static String create(HttpApi api, String body) {
    HttpApi.Response response = api.post("/api/v1/sweeps", body);
    if (response.status() != 201) {
      throw new IllegalStateException(
          "create answered " + response.status() + ": " + response.body());
    }
    return response.json().get("id").asString();
  }

  private static void fillMetrics(JdbcTemplate jdbc, String database, String sweepId) {
    String random = database.equals("postgres") ? "random()" : "rand()";
    int updated =
        jdbc.update(
            "update jobs set metric_best = "
                + random
                + ", metric_value = "
                + random
                + ", metrics_step = 100 where sweep_id = ? and trial % 10 <> 0",
            sweepId);
    if (database.equals("postgres")) {
      jdbc.execute("analyze jobs");
    }
    System.out.printf(
        "%s: %,d of 10,000 trials given a value (the rest none)%n", database, updated);
  }

  /** The cursor after {@code pages} pages. */
  private static String deepCursor(HttpApi api, String first, int pages) {
    String cursor = null;
    for (int i = 0; i < pages; i++) {
      HttpApi.Response page = api.get(first + (cursor == null ? "" : "&cursor=" + cursor));
      cursor = page.json().get("nextCursor").asString();
    }
    return cursor;
  }

  private static void report(
      String database, String what, HttpApi api, String path, int reads, int warmup) {
    for (int i = 0; i < warmup; i++) {
      expect200(api.get(path), path);
    }
    long[] nanos = new long[reads];
    for (int i = 0; i < reads; i++) {
      long t0 = System.nanoTime();
      expect200(api.get(path), path);
      nanos[i] = System.nanoTime() - t0;
    }
    Arrays.sort(nanos);
    System.out.printf(
        "%s: %s: p50 %.1f ms, p99 %.1f ms (%d reads)%n",
        database, what, ms(nanos[reads / 2]), ms(nanos[(int) Math.ceil(reads * 0.99) - 1]), reads);
  }

  /** A cancel without HttpApi's 30 s limit on an answer: before issue 24 it took about that. */
  private static void cancel(int port, String sweepId) throws Exception {
    java.net.http.HttpResponse<String> response =
        java.net.http.HttpClient.newHttpClient()
            .send(
                java.net.http.HttpRequest.newBuilder(
                        java.net.URI.create(
                            "http://localhost:" + port + "/api/v1/sweeps/" + sweepId + "/cancel"))
                    .header("Authorization", "Bearer " + TOKEN)
                    .timeout(java.time.Duration.ofMinutes(10))
                    .POST(java.net.http.HttpRequest.BodyPublishers.noBody())
                    .build(),
                java.net.http.HttpResponse.BodyHandlers.ofString());
    if (response.statusCode() != 200) {
      throw new IllegalStateException("cancel answered " + response.statusCode());
    }
  }

  private static void expect200(HttpApi.Response response, String path) {
    if (response.status() != 200) {
      throw new IllegalStateException(path + " answered " + response.status());
    }
  }

  private static double ms(long nanos) {
    return nanos / 1e6;
  }

  private static String loadAverage() {
    try {
      return Files.readString(Path.of("/proc/loadavg")).trim();
    } catch (java.io.IOException e) {
      return "?";
    }
  }
}
