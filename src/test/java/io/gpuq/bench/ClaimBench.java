package io.gpuq.bench;

import static io.gpuq.support.JobJson.aJob;

import io.gpuq.job.Caller;
import io.gpuq.job.ClaimedJob;
import io.gpuq.job.Framework;
import io.gpuq.job.JobPlacement;
import io.gpuq.job.JobService;
import io.gpuq.job.JobSpec;
import io.gpuq.job.JobSpecs;
import io.gpuq.job.QueuedJob;
import io.gpuq.support.GpuqCluster;
import io.gpuq.support.HttpApi;
import io.gpuq.support.PostgresDatabase;
import io.gpuq.support.PostgresSupport;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Timestamp;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.LongAdder;

/**
 * Claims per second with three gpuq nodes on one PostgreSQL, and submit-to-start latency while they
 * claim at full speed.
 *
 * <p>Three nodes (Spring contexts in this JVM) share one fresh database of the embedded PostgreSQL
 * and run with {@code cpu-slots=0}, so their own schedulers claim nothing: only the bench's threads
 * claim, through each node's own {@link JobService#markStarted} (its own connection pool), the path
 * a scheduler takes. No worker process is started: this measures the claim, not the spawn.
 *
 * <p>Phase 1 (claims/s): N queued jobs are stored, then T threads per node loop {@code
 * cpuQueueHead(64)} and try {@code markStarted} on each until the queue is empty. "same" order:
 * every thread tries the head in the order given (as real nodes do, so they collide); "spread":
 * thread i starts at its own offset in the head. Claims/s = successful claims / time from the first
 * to the last claim. Duplicate claims are counted in {@code job_attempts} (a job with two attempts)
 * and among the threads' successes; both must be 0.
 *
 * <p>Phase 2 (latency under load): a backlog of N jobs at priority 0 keeps the claimers busy while
 * one HTTP client submits jobs at priority 10 to node 1 at a fixed rate; each streamed job's
 * latency is {@code started_at - created_at} from the database (one clock: one JVM). Claim threads
 * that find the queue empty sleep 1 ms.
 *
 * <p>{@code bench/run ClaimBench [jobs=5000] [threads=1,2,4] [orders=same,spread] [rate=200]
 * [stream=5] [warmup=500]}
 */
public final class ClaimBench {

  private static final int HEAD = 64;
  private static final Caller BENCH = new Caller("bench", Caller.Role.ADMIN);
  private static final JobSpec SPEC =
      JobSpecs.aSpec().name("claim").command("true").framework(Framework.GENERIC).build();

  record Settings(
      int jobs,
      int[] threads,
      List<String> orders,
      int rate,
      int streamSeconds,
      int warmup,
      int batch) {

    static Settings parse(String[] args) {
      BenchArgs given = new BenchArgs(args);
      Settings s =
          new Settings(
              given.getInt("jobs", 5000),
              Arrays.stream(given.get("threads", "1,2,4").split(","))
                  .map(String::trim)
                  .mapToInt(Integer::parseInt)
                  .toArray(),
              List.of(given.get("orders", "same,spread").split(",")),
              given.getInt("rate", 200),
              given.getInt("stream", 5),
              given.getInt("warmup", 500),
              given.getInt("batch", 8));
      given.requireAllRead();
      for (String order : s.orders) {
        if (!order.equals("same") && !order.equals("spread")) {
          throw new IllegalArgumentException("orders are same or spread, not " + order);
        }
      }
      return s;
    }
  }

  /** What one round of claiming did. */
  record ClaimRound(
      int threadsPerNode,
      String order,
      int claimed,
      long lostRaces,
      long headQueries,
      int duplicateSuccesses,
      double seconds,
      int claimedBeforeFirstEmpty,
      double secondsToFirstEmpty,
      Instant firstEmptyAt) {

    double claimsPerSecond() {
      return claimed / seconds;
    }

    /** Claims/s until the claimers first found the queue empty: while they had work throughout. */
    double claimsPerSecondWhileBusy() {
      return claimedBeforeFirstEmpty / secondsToFirstEmpty;
    }
  }

  record Latency(int jobs, double achievedRate, long p50Ms, long p99Ms, long maxMs) {}

  private final List<GpuqCluster.Node> nodes;
  private final List<JobService> services;
  private final HttpApi api;
  private final PostgresDatabase db;

  private ClaimBench(List<GpuqCluster.Node> nodes, PostgresDatabase db) {
    this.nodes = nodes;
    this.services = nodes.stream().map(n -> n.context().getBean(JobService.class)).toList();
    this.api = nodes.get(0).api();
    this.db = db;
  }

  /** Jobs one claim transaction asks for (a node's free slots in one scheduling pass). */
  private static final java.util.concurrent.atomic.AtomicInteger BATCH =
      new java.util.concurrent.atomic.AtomicInteger(8);

  public static void main(String[] args) throws Exception {
    Settings settings = Settings.parse(args);
    BATCH.set(settings.batch());
    System.out.printf(
        "ClaimBench: jobs=%d threads/node=%s orders=%s stream=%d/s for %d s, %d CPUs%n",
        settings.jobs,
        Arrays.toString(settings.threads),
        settings.orders,
        settings.rate,
        settings.streamSeconds,
        Runtime.getRuntime().availableProcessors());
    Path root =
        Files.createTempDirectory(
            Files.createDirectories(Path.of("target/bench-data")).toAbsolutePath(), "claims-");
    PostgresDatabase db = PostgresSupport.freshDatabase();
    System.out.println("PostgreSQL " + PostgresSupport.serverVersion() + ", database " + db.name());
    GpuqCluster cluster = new GpuqCluster(db, root);
    List<GpuqCluster.Node> nodes = new ArrayList<>();
    try {
      for (String name : List.of("node-a", "node-b", "node-c")) {
        nodes.add(cluster.start(name, "--gpuq.scheduler.cpu-slots=0", "--logging.level.root=WARN"));
      }
      new ClaimBench(nodes, db).run(settings);
    } finally {
      for (GpuqCluster.Node node : nodes) {
        node.close();
      }
    }
    System.exit(0); // the embedded PostgreSQL's shutdown hook stops it
  }

  private void run(Settings settings) throws Exception {
    System.out.println("load average at start: " + loadAverage());
    fillQueue(settings.warmup);
    claimRound(2, "spread", null);
    System.out.println("warm-up of " + settings.warmup + " jobs done (discarded)");

    System.out.println();
    System.out.println("Phase 1: claims/s draining a queue of " + settings.jobs + " jobs");
    System.out.println(
        "| threads/node | order | claims/s | lost races | per claim | head queries | duplicates |");
    System.out.println("| ---: | --- | ---: | ---: | ---: | ---: | ---: |");
    for (int threads : settings.threads) {
      for (String order : settings.orders) {
        fillQueue(settings.jobs);
        ClaimRound round = claimRound(threads, order, null);
        long duplicates = duplicateAttempts();
        System.out.printf(
            "| %d × 3 | %s | %,.0f | %,d | %.2f | %,d | %d (db) / %d (threads) |%n",
            threads,
            order,
            round.claimsPerSecond(),
            round.lostRaces,
            (double) round.lostRaces / round.claimed,
            round.headQueries,
            duplicates,
            round.duplicateSuccesses);
        check(round, settings.jobs, duplicates);
      }
    }
    System.out.println("load average: " + loadAverage());

    System.out.println();
    System.out.printf(
        "Phase 2: submit-to-start latency of jobs streamed over HTTP at %d/s for %d s (priority"
            + " 10) while the claimers drain a backlog of %d (priority 0)%n",
        settings.rate, settings.streamSeconds, settings.jobs);
    System.out.println(
        "| threads/node | order | claims/s while busy | backlog drained after | streamed (rate) |"
            + " under load: jobs, p50 / p99 / max | all streamed: p50 / p99 / max | duplicates |");
    System.out.println("| ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: |");
    for (int threads : settings.threads) {
      for (String order : settings.orders) {
        fillQueue(settings.jobs);
        Stream stream = new Stream(settings.rate, settings.streamSeconds);
        ClaimRound round = claimRound(threads, order, stream);
        long duplicates = duplicateAttempts();
        Latency underLoad = latencyOf(stream, round.firstEmptyAt);
        Latency all = latencyOf(stream, null);
        System.out.printf(
            "| %d × 3 | %s | %,.0f | %.1f s | %,d (%.0f/s) | %,d, %d / %d / %d ms |"
                + " %d / %d / %d ms | %d |%n",
            threads,
            order,
            round.claimsPerSecondWhileBusy(),
            round.secondsToFirstEmpty,
            all.jobs,
            all.achievedRate,
            underLoad.jobs,
            underLoad.p50Ms,
            underLoad.p99Ms,
            underLoad.maxMs,
            all.p50Ms,
            all.p99Ms,
            all.maxMs,
            duplicates + round.duplicateSuccesses);
        check(round, settings.jobs + all.jobs, duplicates);
      }
    }
    System.out.println("load average at end: " + loadAverage());
  }

  private static void check(ClaimRound round, int expected, long duplicates) {
    if (round.claimed != expected || duplicates != 0 || round.duplicateSuccesses != 0) {
      throw new IllegalStateException(
          "claimed "
              + round.claimed
              + " of "
              + expected
              + ", duplicates in db "
              + duplicates
              + ", among threads "
              + round.duplicateSuccesses);
    }
  }

  /** Stores {@code count} queued jobs, from four threads spread over the nodes. */
  private void fillQueue(int count) throws InterruptedException {
    AtomicInteger next = new AtomicInteger();
    List<Thread> fillers = new ArrayList<>();
    for (int t = 0; t < 4; t++) {
      JobService service = services.get(t % services.size());
      Thread filler =
          new Thread(
              () -> {
                while (next.getAndIncrement() < count) {
                  service.submit(BENCH, SPEC, null);
                }
              });
      filler.start();
      fillers.add(filler);
    }
    for (Thread filler : fillers) {
      filler.join();
    }
  }

  /**
   * Claims until the queue is empty (and, with a stream, until it has ended and its jobs are
   * claimed).
   */
  private ClaimRound claimRound(int threadsPerNode, String order, Stream stream)
      throws InterruptedException {
    int total = threadsPerNode * nodes.size();
    Set<String> claimed = ConcurrentHashMap.newKeySet();
    AtomicInteger duplicateSuccesses = new AtomicInteger();
    LongAdder lost = new LongAdder();
    LongAdder headQueries = new LongAdder();
    AtomicLong lastClaim = new AtomicLong();
    AtomicLong firstEmpty = new AtomicLong();
    AtomicInteger claimedAtFirstEmpty = new AtomicInteger();
    AtomicReference<Instant> firstEmptyAt = new AtomicReference<>();
    CountDownLatch go = new CountDownLatch(1);
    List<Thread> claimers = new ArrayList<>();
    for (int n = 0; n < nodes.size(); n++) {
      for (int t = 0; t < threadsPerNode; t++) {
        JobService service = services.get(n);
        JobPlacement placement = JobPlacement.cpuOnly(nodes.get(n).name());
        int offset = order.equals("spread") ? (n * threadsPerNode + t) * HEAD / total : 0;
        Thread claimer =
            new Thread(
                () -> {
                  await(go);
                  while (true) {
                    List<QueuedJob> head = service.cpuQueueHead(HEAD);
                    headQueries.increment();
                    if (head.isEmpty()) {
                      if (firstEmpty.compareAndSet(0, System.nanoTime())) {
                        claimedAtFirstEmpty.set(claimed.size());
                        firstEmptyAt.set(Instant.now());
                      }
                      if (stream == null || stream.ended()) {
                        return;
                      }
                      sleepMillis(1);
                      continue;
                    }
                    // As a node's scheduler does: claim up to `batch` jobs (its free slots) in one
                    // transaction, then look at the head again.
                    for (int i = 0; i < head.size(); i += BATCH.get()) {
                      java.util.Map<String, JobPlacement> wanted = new java.util.LinkedHashMap<>();
                      for (int j = i; j < Math.min(head.size(), i + BATCH.get()); j++) {
                        wanted.put(head.get((j + offset) % head.size()).id(), placement);
                      }
                      List<ClaimedJob> got = service.markStarted(wanted);
                      if (!got.isEmpty()) {
                        lastClaim.set(System.nanoTime());
                      }
                      for (ClaimedJob job : got) {
                        if (!claimed.add(job.id())) {
                          duplicateSuccesses.incrementAndGet();
                        }
                      }
                      lost.add(wanted.size() - got.size());
                    }
                  }
                },
                "claimer-" + n + "-" + t);
        claimer.start();
        claimers.add(claimer);
      }
    }
    long start = System.nanoTime();
    go.countDown();
    if (stream != null) {
      stream.run(services.get(0));
    }
    for (Thread claimer : claimers) {
      claimer.join();
    }
    return new ClaimRound(
        threadsPerNode,
        order,
        claimed.size() + duplicateSuccesses.get(),
        lost.sum(),
        headQueries.sum(),
        duplicateSuccesses.get(),
        (lastClaim.get() - start) / 1e9,
        claimedAtFirstEmpty.get(),
        (firstEmpty.get() - start) / 1e9,
        firstEmptyAt.get());
  }

  /** Jobs submitted over HTTP to node 1 at a fixed rate, at a priority above the backlog. */
  private final class Stream {
    private final int rate;
    private final int seconds;
    private final ConcurrentLinkedQueue<String> ids = new ConcurrentLinkedQueue<>();
    private final AtomicBoolean ended = new AtomicBoolean();
    private final AtomicLong backlogLeftAtEnd = new AtomicLong();
    private double elapsedSeconds;

    Stream(int rate, int seconds) {
      this.rate = rate;
      this.seconds = seconds;
    }

    boolean ended() {
      return ended.get();
    }

    /** Submits for the stream's duration; requests overlap so a slow one does not hold the rest. */
    void run(JobService service) throws InterruptedException {
      String body = aJob().priority(10).label("bench", "claim-stream").json();
      ExecutorService senders = Executors.newFixedThreadPool(8);
      ScheduledExecutorService ticker = Executors.newSingleThreadScheduledExecutor();
      int total = rate * seconds;
      AtomicInteger scheduled = new AtomicInteger();
      long start = System.nanoTime();
      ticker.scheduleAtFixedRate(
          () -> {
            if (scheduled.getAndIncrement() < total) {
              senders.execute(() -> ids.add(api.submit(body)));
            }
          },
          0,
          1_000_000_000L / rate,
          TimeUnit.NANOSECONDS);
      while (scheduled.get() < total) {
        Thread.sleep(10);
      }
      ticker.shutdownNow();
      senders.shutdown();
      senders.awaitTermination(1, TimeUnit.MINUTES);
      elapsedSeconds = (System.nanoTime() - start) / 1e9;
      backlogLeftAtEnd.set(queued());
      ended.set(true);
    }
  }

  /** Latency of the streamed jobs, of those created before {@code before} if it is given. */
  private Latency latencyOf(Stream stream, Instant before) throws SQLException {
    List<Long> millis = new ArrayList<>();
    int started = 0;
    try (Connection c = db.connect();
        PreparedStatement s =
            c.prepareStatement(
                "select extract(epoch from (started_at - created_at)) * 1000, created_at"
                    + " from jobs where id = any(?) and started_at is not null")) {
      s.setArray(1, c.createArrayOf("varchar", stream.ids.toArray()));
      try (ResultSet rs = s.executeQuery()) {
        while (rs.next()) {
          started++;
          Timestamp created = rs.getTimestamp(2);
          if (before == null || created.toInstant().isBefore(before)) {
            millis.add(Math.round(rs.getDouble(1)));
          }
        }
      }
    }
    if (started != stream.ids.size()) {
      throw new IllegalStateException(
          "found " + started + " of " + stream.ids.size() + " streamed jobs started");
    }
    millis.sort(null);
    if (millis.isEmpty()) {
      return new Latency(0, 0, -1, -1, -1);
    }
    return new Latency(
        millis.size(),
        stream.ids.size() / stream.elapsedSeconds,
        percentile(millis, 0.50),
        percentile(millis, 0.99),
        millis.get(millis.size() - 1));
  }

  private static long percentile(List<Long> sorted, double p) {
    return sorted.get(Math.min(sorted.size() - 1, (int) Math.ceil(p * sorted.size()) - 1));
  }

  /** Jobs with more than one attempt: each would have been claimed twice. */
  private long duplicateAttempts() throws SQLException {
    return count(
        "select count(*) from (select job_id from job_attempts group by job_id"
            + " having count(*) > 1) twice");
  }

  private long queued() {
    try {
      return count("select count(*) from jobs where state = 'QUEUED'");
    } catch (SQLException e) {
      throw new IllegalStateException(e);
    }
  }

  private long count(String sql) throws SQLException {
    try (Connection c = db.connect();
        Statement s = c.createStatement();
        ResultSet rs = s.executeQuery(sql)) {
      rs.next();
      return rs.getLong(1);
    }
  }

  private static String loadAverage() {
    try {
      return Files.readString(Path.of("/proc/loadavg")).strip();
    } catch (java.io.IOException e) {
      return "unknown";
    }
  }

  private static void await(CountDownLatch latch) {
    try {
      latch.await();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  private static void sleepMillis(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }
}
