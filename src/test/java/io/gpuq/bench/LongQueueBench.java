package io.gpuq.bench;

import io.gpuq.GpuqApplication;
import io.gpuq.job.Job;
import io.gpuq.job.JobBuilder;
import io.gpuq.job.JobState;
import io.gpuq.job.JobStore;
import io.gpuq.schedule.Scheduler;
import io.gpuq.schedule.SchedulingLoop;
import io.gpuq.support.PostgresDatabase;
import io.gpuq.support.PostgresSupport;
import io.gpuq.support.TestAccounts;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import javax.sql.DataSource;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * Issue 34: a long queue costs what a short one does. gpuq runs in this JVM (H2 in file mode, or
 * the embedded PostgreSQL) with one emulated GPU, held by a blocker job that sleeps, so that every
 * queued GPU job waits and each scheduling pass reads the GPU queue's lookahead (1,000). Per round:
 *
 * <ul>
 *   <li>submissions a second: one client submitting GPU jobs one after another over HTTP, owner
 *       {@code alice} (whose {@code max-queued-jobs} is 10,000,000, so that every submission is
 *       counted against it), first on an empty queue, then with the queue seeded;
 *   <li>a pass's read: {@link JobStore#queueHead} as a pass with free CPU slots calls it (the CPU
 *       queue to the free slots, the GPU queue to the lookahead) and what the owners hold;
 *   <li>submit to start: bob's {@code true} (a CPU-only job) from its submission to its attempt's
 *       start, as the store records them.
 * </ul>
 *
 * Shapes: "one", all the queue alice's; "ten", ten owners (alice one of them) with a tenth each.
 * The queued jobs are copies of one GPU job per owner ({@code insert ... select}). Beside them, the
 * two statements issue 34 changed, before and after, interleaved on the same data ({@code
 * statements=false} leaves them out, for a build from before, which has no {@code owner_queued}).
 *
 * <p>{@code bench/run LongQueueBench [queued=100000] [databases=h2,postgres] [shapes=one,ten]
 * [submissions=1000] [passes=30] [starts=10] [statements=true] [clients=1]}
 */
public final class LongQueueBench {

  private static final int LOOKAHEAD = 1_000;
  private static final int FREE_CPU_SLOTS = 3;

  /** The kernel's name of the bench's main thread, which waits for bob's jobs to start. */
  private static final String BENCH_THREAD = "java";

  public static void main(String[] args) throws Exception {
    BenchArgs given = new BenchArgs(args);
    int queued = given.getInt("queued", 100_000);
    List<String> databases = List.of(given.get("databases", "h2,postgres").split(","));
    List<String> shapes = List.of(given.get("shapes", "one,ten").split(","));
    int submissions = given.getInt("submissions", 1000);
    int passes = given.getInt("passes", 30);
    int starts = given.getInt("starts", 10);
    int clients = given.getInt("clients", 1);
    // false: for a build from before issue 34, which has no owner_queued.
    boolean statements = Boolean.parseBoolean(given.get("statements", "true"));
    // Where gpuq's CPU goes (per thread, and a JFR summary): "starts", while bob's jobs run;
    // "submissions", while alice submits to the long queue ("after"); "none".
    String profile = given.get("profile", "none");
    given.requireAllRead();
    System.out.printf(
        "LongQueueBench: queued=%,d databases=%s shapes=%s submissions=%d passes=%d starts=%d,"
            + " %d CPUs, load %s%n",
        queued,
        databases,
        shapes,
        submissions,
        passes,
        starts,
        Runtime.getRuntime().availableProcessors(),
        load());
    Path root =
        Files.createTempDirectory(
            Files.createDirectories(Path.of("target/bench-data")).toAbsolutePath(), "long-");
    for (String database : databases) {
      for (String shape : shapes) {
        round(
            database,
            shape,
            queued,
            submissions,
            passes,
            starts,
            statements,
            clients,
            profile,
            root.resolve(database + shape));
      }
    }
    System.out.println("load at end: " + load());
    System.exit(0);
  }

  private static String load() throws Exception {
    return Files.readString(Path.of("/proc/loadavg")).trim();
  }

  private static void round(
      String database,
      String shape,
      int queued,
      int submissions,
      int passes,
      int starts,
      boolean statements,
      int clients,
      String profile,
      Path dataDir)
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
            "--gpuq.gpu.emulated.count=1",
            "--gpuq.scheduler.cpu-slots=" + FREE_CPU_SLOTS,
            "--gpuq.scheduler.lookahead=" + LOOKAHEAD,
            TestAccounts.runAsSelfArgument(),
            "--gpuq.worker.allow-shared-account=true",
            "--logging.level.root=WARN"));
    String[] owners = {"alice", "bob", "blocker"};
    for (int i = 0; i < owners.length; i++) {
      args.add("--gpuq.auth.tokens[%d].name=%s".formatted(i, owners[i]));
      args.add("--gpuq.auth.tokens[%d].token=%s-token-0123456789".formatted(i, owners[i]));
      args.add("--gpuq.auth.tokens[%d].max-queued-jobs=10000000".formatted(i));
    }
    ConfigurableApplicationContext context =
        new SpringApplicationBuilder(GpuqApplication.class).run(args.toArray(String[]::new));
    String held = null;
    int port = 0;
    try {
      port = Integer.parseInt(context.getEnvironment().getRequiredProperty("local.server.port"));
      JobStore store = context.getBean(JobStore.class);
      DataSource dataSource = context.getBean(DataSource.class);
      SocketHttp blocker = client(port, "blocker");
      held = id(blocker.postJson("/api/v1/jobs", job("sleep", "1000000", 1)));
      awaitState(store, held, JobState.RUNNING);

      System.out.printf("%n%s, %s, load %s%n", database, shape, load());
      // Before: each GPU job's submission woke a pass that read the GPU queue's lookahead, as
      // the bench's wake-up after each one does; after: only one that such a pass would read.
      SchedulingLoop loop = context.getBean(Scheduler.class).loop();
      Runnable asBefore = loop::wakeUpForGpus;
      // The JVM warmed first (as many submissions as a phase, twice), so that the empty queue's
      // rates, measured first, are not its JIT's; then out of the queue again in one statement.
      submitRate(client(port, "alice"), 2 * submissions, clients, null);
      cancelQueued(dataSource, "alice");
      loop.wakeUpForGpus();
      double emptyBefore = submitRate(client(port, "alice"), submissions, clients, asBefore);
      double emptyRate = submitRate(client(port, "alice"), submissions, clients, null);
      long t0 = System.nanoTime();
      seed(store, dataSource, shape, queued, pg != null);
      System.out.printf(
          "  seeded %,d queued GPU jobs in %.1f s%n", queued, (System.nanoTime() - t0) / 1e9);
      // New connections: the server closes one left idle while the queue was seeded.
      double longBefore = submitRate(client(port, "alice"), submissions, clients, asBefore);
      Profile submitting = Profile.startIf(profile.equals("submissions"));
      double longRate = submitRate(client(port, "alice"), submissions, clients, null);
      submitting.print(submissions, "submission", dataDir.resolve("submissions.jfr"));
      double longBeforeAgain = submitRate(client(port, "alice"), submissions, clients, asBefore);
      long[] pass = new long[passes];
      for (int i = -3; i < passes; i++) {
        // A write to jobs before each, as a pass follows a submission or an end: H2 answers a
        // query run again on tables unchanged since from its last result.
        try (Connection c = dataSource.getConnection();
            PreparedStatement touch =
                c.prepareStatement("update jobs set priority = ? where id = ?")) {
          touch.setInt(1, i & 1);
          touch.setString(2, held);
          touch.executeUpdate();
        }
        long start = System.nanoTime();
        store.queueHead(FREE_CPU_SLOTS, LOOKAHEAD, LOOKAHEAD, LOOKAHEAD);
        store.heldByOwner();
        if (i >= 0) {
          pass[i] = System.nanoTime() - start;
        }
      }
      if (statements) {
        sideBySide(store, dataSource, passes);
      }
      SocketHttp bob = client(port, "bob");
      long[] toStart = new long[starts];
      Profile starting = Profile.startIf(profile.equals("starts"));
      CpuSnapshot threads0 = CpuSnapshot.of(ProcessHandle.current().pid());
      long wall0 = System.nanoTime();
      for (int i = 0; i < starts; i++) {
        String id = id(bob.postJson("/api/v1/jobs", job("true", null, 0)));
        Job started = awaitState(store, id, null);
        toStart[i] = Duration.between(started.createdAt(), started.startedAt()).toNanos();
      }
      double wallPerStart = (System.nanoTime() - wall0) / 1e9 / starts;
      List<CpuSnapshot.GroupUse> threadUse =
          CpuSnapshot.of(ProcessHandle.current().pid()).groupsSince(threads0);
      // The bench's own thread, which polls the store for the start, is not gpuq's.
      double cpuPerStart =
          threadUse.stream()
                  .filter(group -> !group.group().equals(BENCH_THREAD))
                  .mapToLong(CpuSnapshot.GroupUse::onCpuNanos)
                  .sum()
              / 1e9
              / starts;
      starting.print(starts, "bob job", dataDir.resolve("starts.jfr"));
      Arrays.sort(pass);
      Arrays.sort(toStart);
      System.out.printf(
          "| %s, %s, %,d queued | p50 | max |%n| --- | ---: | ---: |%n", database, shape, queued);
      System.out.printf(
          "| a pass's read (queue heads, held) | %.1f ms | %.1f ms |%n",
          pass[pass.length / 2] / 1e6, pass[pass.length - 1] / 1e6);
      System.out.printf(
          "| bob's `true`: submit to start | %.3f s | %.3f s |%n",
          toStart[toStart.length / 2] / 1e9, toStart[toStart.length - 1] / 1e9);
      System.out.printf(
          "| bob's `true`: gpuq's CPU per job (submit to end, wall %.2f s; the bench's polling"
              + " left out) | %.2f CPU-s | |%n",
          wallPerStart, cpuPerStart);
      System.out.printf(
          "| submissions a second, %d client(s), a GPU pass woken by each (before): empty queue /"
              + " long queue (twice) | %.0f | %.0f, %.0f |%n",
          clients, emptyBefore, longBefore, longBeforeAgain);
      System.out.printf(
          "| submissions a second, %d client(s), after: empty queue / long queue | %.0f | %.0f |%n",
          clients, emptyRate, longRate);
      System.out.println("  load after: " + load());
    } finally {
      if (held != null) {
        // Its sleep would outlive this JVM. A new connection: the server closes one left idle.
        try {
          client(port, "blocker").postJson("/api/v1/jobs/" + held + "/cancel", "{}");
          JobStore store = context.getBean(JobStore.class);
          long giveUp = System.nanoTime() + 30_000_000_000L;
          while (store.find(held).orElseThrow().finishedAt() == null
              && System.nanoTime() < giveUp) {
            Thread.sleep(20);
          }
        } catch (RuntimeException e) {
          System.out.println("  could not cancel the blocker job " + held + ": " + e);
        }
      }
      context.close();
    }
  }

  /** A JFR recording and the threads' CPU over one phase, or nothing. */
  private record Profile(jdk.jfr.Recording recording, CpuSnapshot before) {

    static Profile startIf(boolean wanted) throws Exception {
      if (!wanted) {
        return new Profile(null, null);
      }
      jdk.jfr.Recording recording =
          new jdk.jfr.Recording(jdk.jfr.Configuration.getConfiguration("profile"));
      recording.start();
      return new Profile(recording, CpuSnapshot.of(ProcessHandle.current().pid()));
    }

    /** The JVM's threads over the phase, per item, busiest first; then the JFR summary. */
    void print(int items, String item, Path jfr) throws Exception {
      if (recording == null) {
        return;
      }
      List<CpuSnapshot.GroupUse> groups =
          CpuSnapshot.of(ProcessHandle.current().pid()).groupsSince(before);
      System.out.printf(
          "  CPU per %s, by thread group (\"%s\": the bench's)%n", item, BENCH_THREAD);
      for (CpuSnapshot.GroupUse group : groups) {
        if (group.onCpuNanos() / items >= 100_000) {
          System.out.printf(
              "    %7.2f ms  %s (%d)%n",
              group.onCpuNanos() / 1e6 / items, group.group(), group.threads());
        }
      }
      recording.stop();
      recording.dump(jfr);
      recording.close();
      JfrHotSpots.print(jfr, 25);
    }
  }

  /** Cancels the owner's queued jobs in one statement (the queue counts follow by trigger). */
  private static void cancelQueued(DataSource dataSource, String owner) throws Exception {
    try (Connection c = dataSource.getConnection();
        PreparedStatement cancel =
            c.prepareStatement(
                "update jobs set state = 'CANCELLED', finished_at = ? where owner = ?"
                    + " and state = 'QUEUED'")) {
      cancel.setObject(1, java.time.OffsetDateTime.now(java.time.ZoneOffset.UTC));
      cancel.setString(2, owner);
      cancel.executeUpdate();
    }
  }

  /** Issue 34's statement before. */
  private static final String OLD_QUEUED_BY_ID =
      "select j.id, j.owner, j.gpus, j.gpu_memory_bytes, j.gpu_fraction, j.priority, j.queued_at,"
          + " j.node_selector, j.sweep_id, j.cpus, j.memory_bytes"
          + " from jobs j where j.state = 'QUEUED' and j.id in (%s)";

  /** {@code JobTable}'s statement after, copied so that the bench runs on a build before. */
  private static final String NEW_QUEUED_BY_ID =
      "select j.id, j.owner, j.gpus, j.gpu_memory_bytes, j.gpu_fraction, j.priority, j.queued_at,"
          + " j.node_selector, j.sweep_id, j.cpus, j.memory_bytes, j.state"
          + " from jobs j where j.id in (%s)";

  /** Issue 34's count before, as each submission ran it. */
  private static final String OLD_QUEUED_COUNT =
      "select owner, count(*) from jobs where state = 'QUEUED' and owner in (?, ?) group by owner";

  private static final String NEW_QUEUED_COUNT =
      "select owner, jobs from owner_queued where owner in (?, ?)";

  /**
   * The two statements issue 34 changed, before and after, interleaved on the same data: the rows
   * of the pass's chosen GPU jobs by id, and the count a submission reads.
   */
  private static void sideBySide(JobStore store, DataSource dataSource, int samples)
      throws Exception {
    List<String> ids = new ArrayList<>();
    store.queueHead(0, 0, LOOKAHEAD, LOOKAHEAD).gpu().forEach(job -> ids.add(job.id()));
    String byId =
        NEW_QUEUED_BY_ID.formatted(
            String.join(",", java.util.Collections.nCopies(ids.size(), "?")));
    String oldById =
        OLD_QUEUED_BY_ID.formatted(
            String.join(",", java.util.Collections.nCopies(ids.size(), "?")));
    long[][] t = new long[4][samples];
    try (Connection c = dataSource.getConnection()) {
      for (int i = -2; i < samples; i++) {
        // Parameters that differ from the last sample's: H2 answers a query run again with the
        // same parameters, on tables unchanged since, from the last result.
        java.util.Collections.rotate(ids, 1);
        List<String> owner = List.of("alice", "nobody-" + i);
        long a = System.nanoTime();
        int oldRows = rows(c, oldById, ids);
        long b = System.nanoTime();
        int newRows = rows(c, byId, ids);
        long d = System.nanoTime();
        rows(c, OLD_QUEUED_COUNT, owner);
        long e = System.nanoTime();
        rows(c, NEW_QUEUED_COUNT, owner);
        long f = System.nanoTime();
        if (oldRows != newRows) {
          throw new IllegalStateException("before read " + oldRows + " rows, after " + newRows);
        }
        if (i >= 0) {
          t[0][i] = b - a;
          t[1][i] = d - b;
          t[2][i] = e - d;
          t[3][i] = f - e;
        }
      }
    }
    String[] names = {
      "the pass's " + ids.size() + " chosen rows: before (state and ids)",
      "the pass's chosen rows: after (by primary key)",
      "alice's queued jobs at submit: before (counted)",
      "alice's queued jobs at submit: after (owner_queued)"
    };
    System.out.println("| statement | p50 | max |\n| --- | ---: | ---: |");
    for (int k = 0; k < 4; k++) {
      Arrays.sort(t[k]);
      System.out.printf(
          "| %s | %.2f ms | %.2f ms |%n",
          names[k], t[k][samples / 2] / 1e6, t[k][samples - 1] / 1e6);
    }
  }

  private static int rows(Connection c, String sql, List<String> parameters) throws Exception {
    try (PreparedStatement select = c.prepareStatement(sql)) {
      for (int i = 0; i < parameters.size(); i++) {
        select.setString(i + 1, parameters.get(i));
      }
      int n = 0;
      try (ResultSet row = select.executeQuery()) {
        while (row.next()) {
          n++;
        }
      }
      return n;
    }
  }

  private static SocketHttp client(int port, String owner) {
    return new SocketHttp("127.0.0.1", port, owner + "-token-0123456789");
  }

  /**
   * GPU jobs submitted a second by {@code clients} threads, {@code count} in all; {@code
   * afterEach}, when given, runs after each submission.
   */
  private static double submitRate(SocketHttp client, int count, int clients, Runnable afterEach)
      throws Exception {
    Runnable submit =
        () -> {
          id(client.postJson("/api/v1/jobs", job("true", null, 1)));
          if (afterEach != null) {
            afterEach.run();
          }
        };
    for (int i = 0; i < 50; i++) { // warm-up
      submit.run();
    }
    java.util.concurrent.ExecutorService pool =
        java.util.concurrent.Executors.newFixedThreadPool(clients);
    try {
      java.util.concurrent.atomic.AtomicInteger left =
          new java.util.concurrent.atomic.AtomicInteger(count);
      List<java.util.concurrent.Future<?>> running = new ArrayList<>();
      long start = System.nanoTime();
      for (int c = 0; c < clients; c++) {
        running.add(
            pool.submit(
                () -> {
                  while (left.getAndDecrement() > 0) {
                    submit.run();
                  }
                }));
      }
      for (java.util.concurrent.Future<?> each : running) {
        each.get(10, java.util.concurrent.TimeUnit.MINUTES);
      }
      return count / ((System.nanoTime() - start) / 1e9);
    } finally {
      pool.shutdownNow();
    }
  }

  private static String job(String command, String argument, int gpus) {
    return argument == null
        ? "{\"command\":[\"%s\"],\"resources\":{\"gpus\":%d}}".formatted(command, gpus)
        : "{\"command\":[\"%s\",\"%s\"],\"resources\":{\"gpus\":%d}}"
            .formatted(command, argument, gpus);
  }

  private static String id(SocketHttp.Response response) {
    if (response.status() != 201 && response.status() != 200) {
      throw new IllegalStateException(
          "submit answered " + response.status() + ": " + response.body());
    }
    return BenchClient.JSON.readTree(response.body()).get("id").asString();
  }

  /** Waits for the job to reach {@code state}, or (null) to have started. */
  private static Job awaitState(JobStore store, String id, JobState state) throws Exception {
    while (true) {
      Job job = store.find(id).orElseThrow();
      if (state == null ? job.startedAt() != null : job.state() == state) {
        return job;
      }
      Thread.sleep(10);
    }
  }

  /** One GPU job per owner through the store, then copies of it in one statement each. */
  private static void seed(
      JobStore store, DataSource dataSource, String shape, int queued, boolean postgres)
      throws Exception {
    int owners = shape.equals("ten") ? 10 : 1;
    List<String> columns = new ArrayList<>();
    try (Connection c = dataSource.getConnection()) {
      for (int o = 0; o < owners; o++) {
        int count = queued / owners;
        String template =
            JobBuilder.aQueuedJob()
                .ownedBy(o == 0 ? "alice" : String.format(Locale.ROOT, "owner-%02d", o))
                .onAGpu()
                .in(store)
                .id();
        if (columns.isEmpty()) {
          try (PreparedStatement s = c.prepareStatement("select * from jobs where id = ?")) {
            s.setString(1, template);
            try (ResultSet rs = s.executeQuery()) {
              for (int i = 1; i <= rs.getMetaData().getColumnCount(); i++) {
                String name = rs.getMetaData().getColumnName(i).toLowerCase(Locale.ROOT);
                if (!name.equals("id") && !name.equals("gpu_job")) {
                  columns.add(name);
                }
              }
            }
          }
        }
        String list = String.join(", ", columns);
        String series = postgres ? "generate_series(?, ?) as r(x)" : "system_range(?, ?) as r(x)";
        // In commits of 5,000: H2 reads through one transaction's 100,000 uncommitted rows slowly,
        // and the scheduler's passes read the queue meanwhile.
        try (PreparedStatement copy =
            c.prepareStatement(
                "insert into jobs (id, "
                    + list
                    + ") select cast(? as varchar(16)) || lpad(cast(r.x as varchar), 10, '0'), "
                    + list
                    + " from jobs t, "
                    + series
                    + " where t.id = ?")) {
          for (int from = 1; from < count; from += 5_000) {
            copy.setString(1, template.substring(0, 16));
            copy.setInt(2, from);
            copy.setInt(3, Math.min(count - 1, from + 4_999));
            copy.setString(4, template);
            copy.executeUpdate();
          }
        }
      }
      if (postgres) {
        try (var s = c.createStatement()) {
          s.execute("analyze");
        }
      }
    }
  }
}
