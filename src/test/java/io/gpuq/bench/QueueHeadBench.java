package io.gpuq.bench;

import io.gpuq.GpuqApplication;
import io.gpuq.job.JobBuilder;
import io.gpuq.job.JobStore;
import io.gpuq.support.PostgresDatabase;
import io.gpuq.support.PostgresSupport;
import io.gpuq.support.TestAccounts;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import javax.sql.DataSource;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * Issue 26: the read of a pass's queue heads (every owner's first GPU jobs, the lookahead of 1,000
 * in all), the statements of before and after side by side on the same data in one run.
 *
 * <p>Before: every queued job's key read from the index {@code jobs_queue_by_owner} in owners'
 * order, each owner's first jobs picked from it, those rows read by id (the statements are copied
 * here as they were, and V16's index, which V21 dropped, is made again for them). After: {@link
 * JobStore#queueHead(int, int, int, int)} as a pass calls it (which also reads the full sweeps and
 * the sweeps' slots, as it did before): the owners found by skipping through {@code
 * jobs_queue_by_owner_and_kind}, then a bounded seek per owner.
 *
 * <p>gpuq runs in this JVM on H2 in file mode (or the embedded PostgreSQL) with no GPU and no CPU
 * slot, so that its own passes read nothing. The queued GPU jobs are made as copies of one job per
 * owner ({@code insert ... select}). Shapes: "even", {@code queued / owners} jobs each; "skewed",
 * one owner has all but one job per other owner.
 *
 * <p>{@code bench/run QueueHeadBench [queued=10000] [owners=100] [databases=h2] [samples=300]
 * [warmup=100]}
 */
public final class QueueHeadBench {

  private static final int LOOKAHEAD = 1_000;

  private static final String OLD_QUEUED_KEYS =
      "select j.owner, j.priority, j.id, j.gpus, j.sweep_id from jobs j where j.state = 'QUEUED'"
          + " order by j.owner, j.priority desc, j.id";

  private static final String OLD_QUEUED_BY_ID =
      "select j.id, j.owner, j.gpus, j.gpu_memory_bytes, j.gpu_fraction, j.priority, j.queued_at,"
          + " j.node_selector, j.sweep_id from jobs j where j.state = 'QUEUED' and j.id in (%s)";

  public static void main(String[] args) throws Exception {
    BenchArgs given = new BenchArgs(args);
    int queued = given.getInt("queued", 10_000);
    int owners = given.getInt("owners", 100);
    List<String> databases = List.of(given.get("databases", "h2").split(","));
    int samples = given.getInt("samples", 300);
    int warmup = given.getInt("warmup", 100);
    given.requireAllRead();
    System.out.printf(
        "QueueHeadBench: queued=%,d owners=%d lookahead=%d databases=%s samples=%d warmup=%d,"
            + " %d CPUs, load %s%n",
        queued,
        owners,
        LOOKAHEAD,
        databases,
        samples,
        warmup,
        Runtime.getRuntime().availableProcessors(),
        Files.readString(Path.of("/proc/loadavg")).trim());
    Path root =
        Files.createTempDirectory(
            Files.createDirectories(Path.of("target/bench-data")).toAbsolutePath(), "heads-");
    for (String database : databases) {
      for (String shape : List.of("even", "skewed")) {
        round(database, shape, queued, owners, samples, warmup, root.resolve(database + shape));
      }
    }
    System.out.println("load at end: " + Files.readString(Path.of("/proc/loadavg")).trim());
    System.exit(0);
  }

  private static void round(
      String database, String shape, int queued, int owners, int samples, int warmup, Path dataDir)
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
            "--gpuq.gpu.emulated.count=0",
            "--gpuq.scheduler.cpu-slots=0",
            "--gpuq.auth.tokens[0].name=bench",
            "--gpuq.auth.tokens[0].token=bench-admin-0123456789",
            "--gpuq.auth.tokens[0].role=ADMIN",
            TestAccounts.runAsSelfArgument(),
            "--gpuq.worker.allow-shared-account=true",
            "--logging.level.root=WARN"));
    ConfigurableApplicationContext context =
        new SpringApplicationBuilder(GpuqApplication.class).run(args.toArray(String[]::new));
    try {
      JobStore store = context.getBean(JobStore.class);
      DataSource dataSource = context.getBean(DataSource.class);
      long t0 = System.nanoTime();
      seed(store, dataSource, shape, queued, owners, pg != null);
      System.out.printf(
          "%n%s, %s: seeded %,d queued GPU jobs of %d owners in %.1f s%n",
          database, shape, queued, owners, (System.nanoTime() - t0) / 1e9);
      Set<String> before;
      try (Connection c = dataSource.getConnection()) {
        before = new HashSet<>(oldQueueHead(c, LOOKAHEAD, LOOKAHEAD));
      }
      Set<String> after = new HashSet<>();
      store.queueHead(0, 0, LOOKAHEAD, LOOKAHEAD).gpu().forEach(job -> after.add(job.id()));
      Set<String> owned = new HashSet<>();
      store.queueHead(0, 0, LOOKAHEAD, LOOKAHEAD).gpu().forEach(job -> owned.add(job.owner()));
      System.out.printf(
          "  heads read: before %d, after %d (%d in both); owners in the heads after: %d%n",
          before.size(), after.size(), intersection(before, after), owned.size());
      long[] old = new long[samples];
      long[] now = new long[samples];
      long[] frame = new long[samples];
      try (Connection c = dataSource.getConnection()) {
        // Interleaved, so that both see the same load on a shared machine.
        for (int i = -warmup; i < samples; i++) {
          long start = System.nanoTime();
          oldQueueHead(c, LOOKAHEAD, LOOKAHEAD);
          long mid = System.nanoTime();
          store.queueHead(0, 0, LOOKAHEAD, LOOKAHEAD);
          long end = System.nanoTime();
          store.queueHead(0, 0, 0, 0);
          long empty = System.nanoTime();
          if (i >= 0) {
            old[i] = mid - start;
            now[i] = end - mid;
            frame[i] = empty - end;
          }
        }
      }
      Arrays.sort(old);
      Arrays.sort(now);
      Arrays.sort(frame);
      System.out.printf(
          "| %s, %s, %,d queued of %d owners | p50 | p99 | max |%n",
          database, shape, queued, owners);
      System.out.println("| --- | ---: | ---: | ---: |");
      row("before: every queued key", old);
      row("after: seeks per owner", now);
      row("(of which the frame: queueHead with limits 0)", frame);
      System.out.printf(
          "| before / after | %.1fx | %.1fx | |%n",
          (double) percentile(old, 0.5) / percentile(now, 0.5),
          (double) percentile(old, 0.99) / percentile(now, 0.99));
    } finally {
      context.close();
    }
  }

  private static int intersection(Set<String> a, Set<String> b) {
    Set<String> both = new HashSet<>(a);
    both.retainAll(b);
    return both.size();
  }

  private static void row(String name, long[] sorted) {
    System.out.printf(
        "| %s | %.2f ms | %.2f ms | %.2f ms |%n",
        name,
        percentile(sorted, 0.5) / 1e6,
        percentile(sorted, 0.99) / 1e6,
        sorted[sorted.length - 1] / 1e6);
  }

  private static long percentile(long[] sorted, double p) {
    return sorted[(int) Math.ceil(sorted.length * p) - 1];
  }

  /** The GPU queue head as it was read before: every queued key, then the chosen rows by id. */
  private static List<String> oldQueueHead(Connection c, int perOwner, int limit) throws Exception {
    record Key(String owner, int priority, String id, int rank) {}
    List<Key> keys = new ArrayList<>();
    try (PreparedStatement select = c.prepareStatement(OLD_QUEUED_KEYS);
        ResultSet row = select.executeQuery()) {
      String owner = null;
      int rank = 0;
      while (row.next()) {
        if (row.getInt(4) < 1) {
          continue;
        }
        String of = row.getString(1);
        if (!of.equals(owner)) {
          owner = of;
          rank = 0;
        }
        if (++rank <= perOwner) {
          keys.add(new Key(of, row.getInt(2), row.getString(3), rank));
        }
      }
    }
    keys.sort(
        Comparator.comparingInt(Key::rank)
            .thenComparing(Comparator.comparingInt(Key::priority).reversed())
            .thenComparing(Key::id));
    List<Key> chosen = keys.subList(0, Math.min(limit, keys.size()));
    List<String> ids = new ArrayList<>();
    try (PreparedStatement select =
        c.prepareStatement(
            OLD_QUEUED_BY_ID.formatted(
                String.join(",", Collections.nCopies(chosen.size(), "?"))))) {
      int i = 1;
      for (Key key : chosen) {
        select.setString(i++, key.id());
      }
      try (ResultSet row = select.executeQuery()) {
        while (row.next()) {
          ids.add(row.getString(1));
        }
      }
    }
    return ids;
  }

  /**
   * One GPU job per owner through the store, then copies of it in one statement each (ids after its
   * first 16 characters), every column but those the database computes.
   */
  private static void seed(
      JobStore store, DataSource dataSource, String shape, int queued, int owners, boolean postgres)
      throws Exception {
    List<String> columns = new ArrayList<>();
    try (Connection c = dataSource.getConnection()) {
      for (int o = 0; o < owners; o++) {
        int count =
            shape.equals("even")
                ? queued / owners + (o < queued % owners ? 1 : 0)
                : (o == 0 ? queued - (owners - 1) : 1);
        String template =
            JobBuilder.aQueuedJob()
                .ownedBy(String.format(Locale.ROOT, "owner-%03d", o))
                .onAGpu()
                .priority(o % 3)
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
        if (count > 1) {
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
            copy.setString(1, template.substring(0, 16));
            copy.setInt(2, count - 1);
            copy.setString(3, template);
            copy.executeUpdate();
          }
        }
      }
      try (var s = c.createStatement()) {
        // The statement of before with the index it was read from (V16's, which V21 replaced).
        s.execute(
            "create index jobs_queue_by_owner on jobs"
                + " (state, owner, priority desc, id, gpus, sweep_id)");
        s.execute("analyze");
      }
    }
  }
}
