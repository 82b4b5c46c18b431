package io.gpuq.bench;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import tools.jackson.databind.JsonNode;

/**
 * Throughput of gpuq's HTTP API and scheduler with 8 CPU slots, against {@code xargs -P 8} running
 * the same commands in the same run.
 *
 * <p>Starts the packaged jar as a separate process (building it first if it is missing or older
 * than {@code src/main}), warms it up, then for {@code true} and {@code sleep 0.05}: submits the
 * jobs from concurrent keep-alive clients (submissions/s), waits until all have ended (end-to-end
 * jobs/s), and runs {@code seq N | xargs -P 8 -I{} CMD}, then the same through gpuq's own worker
 * wrapper (the shell that writes each exit code to disk so that it survives a gpuq crash): what no
 * scheduler that keeps that promise can beat on this machine. Last, submit-to-start latency while a
 * slot is free: jobs submitted one at a time, each after the previous one ended.
 *
 * <p>{@code bench/run ThroughputBench [jobs=1000] [clients=16] [latency=200] [warmup=200] [slots=8]
 * [client=socket|jdk] [profile=true|sleep] [build=false]}. {@code client=jdk} submits through the
 * JDK's {@code HttpClient} instead of plain sockets ({@link SocketHttp}). {@code profile=true}
 * records the server with JFR during the {@code true} phase (or {@code sleep}) and prints where its
 * time went (the figures of that run are perturbed).
 */
public final class ThroughputBench {

  static final Path JAR = Path.of("target/gpuq-0.1.0-SNAPSHOT.jar");
  private static final Path POM = Path.of("pom.xml");

  private final BenchClient client;
  private final GpuqServer server;
  private final Settings settings;

  private ThroughputBench(GpuqServer server, Settings settings) {
    this.server = server;
    this.client = new BenchClient(server.port(), settings.client());
    this.settings = settings;
  }

  record Settings(
      int jobs,
      int clients,
      int latencyJobs,
      int warmup,
      int slots,
      BenchClient.Submitter client,
      String profile,
      boolean build,
      List<String> jvm) {

    /** Which phase JFR records: "true" (the phase of that name), "sleep" or none. */
    private static String profilePhase(String value) {
      return switch (value) {
        case "true", "sleep" -> value;
        case "false", "" -> "";
        default -> throw new IllegalArgumentException("profile=true|sleep|false, not " + value);
      };
    }

    boolean profiling() {
      return !profile.isEmpty();
    }

    static Settings parse(String[] args) {
      BenchArgs given = new BenchArgs(args);
      String jvm = given.get("jvm", String.join(" ", GpuqServer.DEFAULT_JVM_OPTIONS));
      Settings s =
          new Settings(
              given.getInt("jobs", 1000),
              given.getInt("clients", 16),
              given.getInt("latency", 200),
              given.getInt("warmup", 200),
              given.getInt("slots", 8),
              BenchClient.Submitter.parse(given.get("client", "socket")),
              profilePhase(given.get("profile", "false")),
              Boolean.parseBoolean(given.get("build", "true")),
              jvm.isBlank() ? List.of() : List.of(jvm.trim().split("\\s+")));
      given.requireAllRead();
      return s;
    }
  }

  public static void main(String[] args) throws Exception {
    Settings settings = Settings.parse(args);
    String loadAtStart = loadAverage();
    System.out.printf(
        "ThroughputBench: %d jobs per workload, %d HTTP clients (%s), %d CPU slots; %d CPUs;"
            + " load average at start: %s%n",
        settings.jobs,
        settings.clients,
        settings.client.name().toLowerCase(java.util.Locale.ROOT),
        settings.slots,
        cpus(),
        loadAtStart);
    ensureJar(settings.build);

    List<String> jvm = new ArrayList<>(settings.jvm);
    if (settings.profiling()) {
      // Spring's request stacks are deeper than JFR's default of 64 frames.
      jvm.add("-XX:FlightRecorderOptions:stackdepth=512");
    }
    Report report;
    try (GpuqServer server = GpuqServer.start(JAR, settings.slots, jvm)) {
      System.out.printf(
          "gpuq pid %d on port %d, healthy after %.1f s%n",
          server.pid(), server.port(), server.startup().toMillis() / 1000.0);
      try {
        report = new ThroughputBench(server, settings).run();
      } catch (RuntimeException | Error e) {
        System.out.println("bench failed; the server's log ends with:");
        System.out.println(GpuqServer.tail(server.log(), 60));
        throw e;
      }
    }
    report.print(loadAtStart, loadAverage());
  }

  private Report run() throws Exception {
    long t0 = System.nanoTime();
    Batch warm = batch("warm-up", List.of("true"), settings.warmup);
    int sequentialWarmup = Math.min(20, settings.latencyJobs);
    latency(sequentialWarmup);
    System.out.printf(
        "warm-up: %d jobs of true at %.0f jobs/s and %d sequential jobs, discarded (%.1f s)%n",
        settings.warmup,
        warm.endToEndPerSecond(),
        sequentialWarmup,
        (System.nanoTime() - t0) / 1e9);

    Path recording = settings.profiling() ? Files.createTempFile("gpuq-bench-", ".jfr") : null;
    List<Workload> workloads =
        List.of(
            workload("true", "true", 800, recording),
            workload("sleep", "sleep 0.05", 150, recording));

    Latency latency = latency(settings.latencyJobs);
    latency.printDetail();

    if (recording != null) {
      System.out.println();
      JfrHotSpots.print(recording, 15);
      System.out.println("(recording kept at " + recording + ")");
    }
    return new Report(settings, workloads, latency);
  }

  /** One workload's jobs through gpuq, then through xargs, plain and through gpuq's wrapper. */
  record Workload(Batch batch, Xargs xargs, Xargs wrapped, int targetPerSecond) {}

  /**
   * @param phase what {@code profile=} calls it
   * @param command the command line, split on spaces for gpuq's argv
   */
  private Workload workload(String phase, String command, int targetPerSecond, Path recording)
      throws Exception {
    startProfile(phase);
    Batch batch = batch(command, List.of(command.split(" ")), settings.jobs);
    stopProfile(phase, recording);
    batch.printDetail();
    Xargs xargs = Xargs.run(command, settings.jobs, settings.slots);
    xargs.print();
    Xargs wrapped = Xargs.runWrapped(command, settings.jobs, settings.slots);
    wrapped.print();
    return new Workload(batch, xargs, wrapped, targetPerSecond);
  }

  private void startProfile(String phase) throws Exception {
    if (settings.profile.equals(phase)) {
      jcmd("JFR.start", "name=bench", "settings=profile");
    }
  }

  private void stopProfile(String phase, Path recording) throws Exception {
    if (settings.profile.equals(phase)) {
      jcmd("JFR.stop", "name=bench", "filename=" + recording);
    }
  }

  // ---------------------------------------------------------------- concurrent batches

  /** One workload pushed through the API: N jobs from concurrent clients, waited for. */
  private Batch batch(String name, List<String> command, int jobs) throws InterruptedException {
    String run = UUID.randomUUID().toString();
    String body = submission(command, run);
    CpuSnapshot serverBefore = CpuSnapshot.of(server.pid());
    long benchCpuBefore = benchCpuNanos();

    AtomicInteger next = new AtomicInteger();
    ConcurrentLinkedQueue<String> refused = new ConcurrentLinkedQueue<>();
    ConcurrentLinkedQueue<String> ids = new ConcurrentLinkedQueue<>();
    long[] roundTrips = new long[jobs];
    long[] lastAnswer = new long[settings.clients];
    CountDownLatch gate = new CountDownLatch(1);
    List<Thread> threads = new ArrayList<>();
    for (int c = 0; c < settings.clients; c++) {
      int me = c;
      Thread t =
          new Thread(
              () -> {
                awaitQuietly(gate);
                for (int i = next.getAndIncrement(); i < jobs; i = next.getAndIncrement()) {
                  try {
                    BenchClient.Posted posted = client.submit(body);
                    roundTrips[i] = posted.answeredNanos() - posted.sentNanos();
                    lastAnswer[me] = Math.max(lastAnswer[me], posted.answeredNanos());
                    if (posted.status() == 201) {
                      ids.add(posted.json().get("id").asString());
                    } else {
                      refused.add(posted.status() + " " + posted.body());
                    }
                  } catch (RuntimeException e) {
                    refused.add(e.toString());
                  }
                }
              },
              "bench-client-" + c);
      threads.add(t);
      t.start();
    }
    Instant firstSend = Instant.now();
    long firstSendNanos = System.nanoTime();
    gate.countDown();
    for (Thread t : threads) {
      t.join();
    }
    long submittedNanos = Arrays.stream(lastAnswer).max().orElseThrow() - firstSendNanos;

    // The queue runs in id order, so the newest job starts last: poll it alone at 10 Hz (a
    // lookup by id), then the stragglers still running with it. List queries are avoided while
    // jobs are queued: each costs the server far more than a lookup (docs/benchmarks.md). This
    // server runs only the bench's jobs, one phase at a time, so no label filter is needed.
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60 + jobs / 5);
    int polls = 0;
    String newest = ids.stream().max(String::compareTo).orElse(null);
    while (newest != null && !terminal(client.job(newest))) {
      polls++;
      checkDeadline(name, deadline);
      GpuqServer.sleep(100);
    }
    while (client.any("QUEUED") || client.any("RUNNING")) {
      polls++;
      checkDeadline(name, deadline);
      GpuqServer.sleep(20);
    }
    long observedNanos = System.nanoTime() - firstSendNanos;
    CpuSnapshot serverAfter = CpuSnapshot.of(server.pid());
    long benchCpu = benchCpuNanos() - benchCpuBefore;

    long listStart = System.nanoTime();
    List<JsonNode> all = client.all(run);
    long listNanos = System.nanoTime() - listStart;
    return new Batch(
        name,
        jobs,
        firstSend,
        submittedNanos,
        observedNanos,
        polls,
        roundTrips,
        List.copyOf(refused),
        all,
        serverBefore,
        serverAfter,
        benchCpu,
        listNanos);
  }

  private static void checkDeadline(String phase, long deadline) {
    if (System.nanoTime() > deadline) {
      throw new IllegalStateException(phase + ": jobs still queued or running at the deadline");
    }
  }

  record Batch(
      String name,
      int jobs,
      Instant firstSend,
      long submittedNanos,
      long observedNanos,
      int polls,
      long[] roundTrips,
      List<String> refused,
      List<JsonNode> all,
      CpuSnapshot serverBefore,
      CpuSnapshot serverAfter,
      long benchCpuNanos,
      long listNanos) {

    double submissionsPerSecond() {
      return jobs / (submittedNanos / 1e9);
    }

    /** From the first submission to the last finishedAt the server recorded. */
    Duration endToEnd() {
      Instant last =
          all.stream()
              .map(j -> j.get("finishedAt"))
              .filter(f -> f != null && !f.isNull())
              .map(f -> Instant.parse(f.asString()))
              .max(Instant::compareTo)
              .orElse(firstSend);
      return Duration.between(firstSend, last);
    }

    double endToEndPerSecond() {
      return jobs / (endToEnd().toNanos() / 1e9);
    }

    Map<String, Integer> states() {
      Map<String, Integer> states = new LinkedHashMap<>();
      all.forEach(j -> states.merge(j.get("state").asString(), 1, Integer::sum));
      return states;
    }

    boolean allSucceeded() {
      return refused.isEmpty()
          && all.size() == jobs
          && all.stream().allMatch(j -> j.get("state").asString().equals("SUCCEEDED"));
    }

    void printDetail() {
      System.out.printf("%n== %s: %d jobs ==%n", name, jobs);
      System.out.printf(
          "  submissions: %.0f/s (%d in %.3f s); POST round trip p50 %.1f ms, p99 %.1f ms%n",
          submissionsPerSecond(),
          jobs,
          submittedNanos / 1e9,
          Percentiles.ofNanos(roundTrips).p(50),
          Percentiles.ofNanos(roundTrips).p(99));
      System.out.printf(
          "  end-to-end: %.0f jobs/s (first submission to last finishedAt: %.3f s; seen by the"
              + " poll after %.3f s, %d polls)%n",
          endToEndPerSecond(), endToEnd().toNanos() / 1e9, observedNanos / 1e9, polls);
      System.out.printf(
          "  states: %s (listed with label=run:<uuid>, limit=1000, in %.3f s after the phase)%n",
          states(), listNanos / 1e9);
      if (!allSucceeded()) {
        System.out.printf("  NOT ALL SUCCEEDED: %d refused submissions%n", refused.size());
        refused.stream().limit(5).forEach(r -> System.out.println("    refused: " + r));
        all.stream()
            .filter(j -> !j.get("state").asString().equals("SUCCEEDED"))
            .limit(5)
            .forEach(
                j ->
                    System.out.printf(
                        "    %s %s %s: %s%n",
                        j.get("id").asString(),
                        j.get("state").asString(),
                        text(j, "failureReason"),
                        text(j, "failureMessage")));
      }
      Percentiles queued = between(all, "createdAt", "startedAt");
      Percentiles running = between(all, "startedAt", "finishedAt");
      System.out.printf(
          "  server stamps under load: createdAt->startedAt (queueing) p50 %.1f ms, p99 %.1f ms;"
              + " startedAt->finishedAt (spawn, run, record) p50 %.1f ms, p99 %.1f ms%n",
          queued.p(50), queued.p(99), running.p(50), running.p(99));
      long wall = observedNanos;
      long jvm = serverAfter.threadsNanosSince(serverBefore);
      long children = serverAfter.childrenNanosSince(serverBefore);
      System.out.printf(
          "  CPU per job: gpuq JVM %.2f ms, its workers (reaped process trees) %.2f ms, this"
              + " bench's JVM %.2f ms; over %.2f s of wall time that is %.2f + %.2f + %.2f"
              + " cores%n",
          jvm / 1e6 / jobs,
          children / 1e6 / jobs,
          benchCpuNanos / 1e6 / jobs,
          wall / 1e9,
          (double) jvm / wall,
          (double) children / wall,
          (double) benchCpuNanos / wall);
      System.out.println(
          "  gpuq threads (on CPU / waiting for a CPU, ms over the phase; busiest first):");
      serverAfter.groupsSince(serverBefore).stream()
          .filter(g -> g.onCpuNanos() > 0)
          .limit(10)
          .forEach(
              g ->
                  System.out.printf(
                      "    %-28s x%-3d %8.1f  / %8.1f%n",
                      g.group(), g.threads(), g.onCpuNanos() / 1e6, g.waitingNanos() / 1e6));
    }
  }

  // ---------------------------------------------------------------- latency, one at a time

  /**
   * Jobs submitted one at a time, each after the previous one has ended, so a slot is always free.
   * Each runs {@code date +%s%N}: its output is the moment the user's process really ran.
   */
  private Latency latency(int jobs) {
    String run = UUID.randomUUID().toString();
    String body = submission(List.of("date", "+%s%N"), run);
    double[] serverStamps = new double[jobs];
    double[] toProcess = new double[jobs];
    double[] roundTrips = new double[jobs];
    for (int i = 0; i < jobs; i++) {
      BenchClient.Posted posted = client.submit(body);
      if (posted.status() != 201) {
        throw new IllegalStateException("submit answered " + posted.status() + posted.body());
      }
      String id = posted.json().get("id").asString();
      JsonNode job = client.job(id);
      while (!terminal(job)) {
        GpuqServer.sleep(2);
        job = client.job(id);
      }
      if (!job.get("state").asString().equals("SUCCEEDED")) {
        throw new IllegalStateException("latency job ended " + job);
      }
      long ranAtNanos = Long.parseLong(client.logs(id).strip());
      long sentAtNanos =
          posted.sentAt().getEpochSecond() * 1_000_000_000L + posted.sentAt().getNano();
      serverStamps[i] = millisBetween(job, "createdAt", "startedAt");
      toProcess[i] = (ranAtNanos - sentAtNanos) / 1e6;
      roundTrips[i] = (posted.answeredNanos() - posted.sentNanos()) / 1e6;
    }
    return new Latency(
        jobs,
        new Percentiles(serverStamps),
        new Percentiles(toProcess),
        new Percentiles(roundTrips));
  }

  record Latency(int jobs, Percentiles serverStamps, Percentiles toProcess, Percentiles post) {

    void printDetail() {
      System.out.printf(
          "%n== submit-to-start while a slot is free: %d jobs of date +%%s%%N, one at a time ==%n",
          jobs);
      System.out.printf("  %-44s %s%n", "server: createdAt -> startedAt", serverStamps.summary());
      System.out.printf(
          "  %-44s %s%n", "client: POST sent -> the process ran (date)", toProcess.summary());
      System.out.printf("  %-44s %s%n", "client: POST round trip (201)", post.summary());
    }
  }

  // ---------------------------------------------------------------- xargs baseline

  record Xargs(String command, boolean wrapped, int jobs, long nanos, int exitCode) {

    static Xargs run(String command, int jobs, int parallel)
        throws IOException, InterruptedException {
      return time(
          command, false, jobs, "seq " + jobs + " | xargs -P " + parallel + " -I{} " + command);
    }

    /**
     * The same commands, each run as gpuq runs a worker: {@code sh wrapper EXIT_FILE PROGRAM ARGS},
     * with the program's absolute path (as gpuq resolves it; a bare {@code true} would be the
     * shell's built-in) and an exit file per job.
     */
    static Xargs runWrapped(String command, int jobs, int parallel)
        throws IOException, InterruptedException {
      Path dir = Files.createTempDirectory("gpuq-bench-wrapper-");
      try {
        Path wrapper = dir.resolve("worker-wrapper.sh");
        try (var in = ThroughputBench.class.getResourceAsStream("/gpuq/worker-wrapper.sh")) {
          Files.write(wrapper, in.readAllBytes());
        }
        String[] argv = command.split(" ", 2);
        String program = onPath(argv[0]);
        String args = argv.length > 1 ? " " + argv[1] : "";
        String script =
            "seq "
                + jobs
                + " | xargs -P "
                + parallel
                + " -I{} sh "
                + wrapper
                + " "
                + dir
                + "/exit.{} "
                + program
                + args;
        return time(command, true, jobs, script);
      } finally {
        try (Stream<Path> files = Files.list(dir)) {
          for (Path f : files.toList()) {
            Files.delete(f);
          }
        }
        Files.delete(dir);
      }
    }

    private static Xargs time(String command, boolean wrapped, int jobs, String script)
        throws IOException, InterruptedException {
      long t0 = System.nanoTime();
      Process p = new ProcessBuilder("sh", "-c", script).inheritIO().start();
      int exit = p.waitFor();
      return new Xargs(command, wrapped, jobs, System.nanoTime() - t0, exit);
    }

    private static String onPath(String program) {
      for (String dir : System.getenv("PATH").split(":")) {
        Path candidate = Path.of(dir, program);
        if (Files.isExecutable(candidate)) {
          return candidate.toString();
        }
      }
      throw new IllegalStateException(program + " is not on the PATH");
    }

    double perSecond() {
      return jobs / (nanos / 1e9);
    }

    void print() {
      System.out.printf(
          "  xargs -P 8 baseline%s, %s: %.0f jobs/s (%.3f s)%s%n",
          wrapped ? " through gpuq's worker wrapper" : "",
          command,
          perSecond(),
          nanos / 1e9,
          exitCode == 0 ? "" : " EXIT CODE " + exitCode);
    }
  }

  // ---------------------------------------------------------------- the summary

  record Report(Settings settings, List<Workload> workloads, Latency latency) {

    void print(String loadAtStart, String loadAtEnd) {
      System.out.printf(
          "%n== summary (%d CPUs; load average at start %s, at end %s) ==%n",
          cpus(), loadAtStart, loadAtEnd);
      String row = "%-12s %-34s %10s %-16s %10s %10s %10s %10s%n";
      System.out.printf(
          row,
          "workload",
          "figure",
          "gpuq",
          "target",
          "xargs -P 8",
          "gpuq/xargs",
          "+wrapper",
          "gpuq/that");
      for (Workload w : workloads) {
        Batch b = w.batch();
        Xargs x = w.xargs();
        Xargs wrapped = w.wrapped();
        System.out.printf(
            row,
            b.name(),
            "submissions/s",
            fmt(b.submissionsPerSecond()),
            ">= 1000",
            "",
            "",
            "",
            "");
        System.out.printf(
            row,
            b.name(),
            "end-to-end jobs/s" + (b.allSucceeded() ? "" : " (NOT ALL SUCCEEDED)"),
            fmt(b.endToEndPerSecond()),
            ">= " + w.targetPerSecond() + (b.name().startsWith("sleep") ? " (ideal 160)" : ""),
            fmt(x.perSecond()),
            String.format("%.2f", b.endToEndPerSecond() / x.perSecond()),
            fmt(wrapped.perSecond()),
            String.format("%.2f", b.endToEndPerSecond() / wrapped.perSecond()));
      }
      latencyRow(row, "submit-to-start p50 (server)", latency.serverStamps().p(50), "");
      latencyRow(row, "submit-to-start p99 (server)", latency.serverStamps().p(99), "< 50 ms");
      latencyRow(row, "POST sent -> process ran p50", latency.toProcess().p(50), "");
      latencyRow(row, "POST sent -> process ran p99", latency.toProcess().p(99), "");
      System.out.printf(
          "(%d jobs per workload from %d clients, after a discarded warm-up of %d; latency from"
              + " %d sequential jobs)%n",
          settings.jobs, settings.clients, settings.warmup, latency.jobs());
    }

    private static void latencyRow(String row, String figure, double millis, String target) {
      System.out.printf(
          row, "date", figure, String.format("%.1f ms", millis), target, "", "", "", "");
    }

    private static String fmt(double perSecond) {
      return String.format("%.0f", perSecond);
    }
  }

  // ---------------------------------------------------------------- small helpers

  record Percentiles(double[] sortedMillis) {

    Percentiles {
      sortedMillis = sortedMillis.clone();
      Arrays.sort(sortedMillis);
    }

    static Percentiles ofNanos(long[] nanos) {
      return new Percentiles(Arrays.stream(nanos).mapToDouble(n -> n / 1e6).toArray());
    }

    /** Nearest rank. */
    double p(double percentile) {
      if (sortedMillis.length == 0) {
        return Double.NaN;
      }
      int rank = (int) Math.ceil(percentile / 100 * sortedMillis.length);
      return sortedMillis[Math.max(0, rank - 1)];
    }

    String summary() {
      return String.format("p50 %6.1f ms   p99 %6.1f ms   max %6.1f ms", p(50), p(99), p(100));
    }
  }

  private static Percentiles between(List<JsonNode> jobs, String from, String to) {
    return new Percentiles(
        jobs.stream()
            .filter(j -> !j.get(from).isNull() && !j.get(to).isNull())
            .mapToDouble(j -> millisBetween(j, from, to))
            .toArray());
  }

  private static double millisBetween(JsonNode job, String from, String to) {
    return Duration.between(
                Instant.parse(job.get(from).asString()), Instant.parse(job.get(to).asString()))
            .toNanos()
        / 1e6;
  }

  private static boolean terminal(JsonNode job) {
    return switch (job.get("state").asString()) {
      case "SUCCEEDED", "FAILED", "CANCELLED" -> true;
      default -> false;
    };
  }

  private static String text(JsonNode job, String field) {
    JsonNode node = job.get(field);
    return node == null || node.isNull() ? "-" : node.asString();
  }

  private static String submission(List<String> command, String run) {
    Map<String, Object> body = new LinkedHashMap<>();
    body.put("command", command);
    body.put("resources", Map.of("gpus", 0));
    body.put("labels", Map.of("run", run));
    return BenchClient.JSON.writeValueAsString(body);
  }

  private void jcmd(String... args) throws IOException, InterruptedException {
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "jcmd").toString());
    command.add(Long.toString(server.pid()));
    command.addAll(List.of(args));
    Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes());
    if (p.waitFor() != 0) {
      throw new IllegalStateException("jcmd " + String.join(" ", args) + " failed: " + out);
    }
  }

  /**
   * Builds the jar when it is missing or older than a source under src/main or the pom (which says
   * how the jar is built), so the bench never measures stale code.
   */
  static void ensureJar(boolean build) throws IOException, InterruptedException {
    boolean stale = !Files.exists(JAR) || newestSource().isAfter(modified(JAR));
    if (!stale) {
      return;
    }
    if (!build) {
      throw new IllegalStateException(
          JAR + " is missing or older than src/main: run ./mvnw -q -B package -DskipTests first");
    }
    System.out.println(
        JAR + " is missing or older than src/main: ./mvnw -q -B package -DskipTests ...");
    int exit =
        new ProcessBuilder(
                "./mvnw", "-q", "-B", "package", "-DskipTests", "-Dspotless.check.skip=true")
            .inheritIO()
            .start()
            .waitFor();
    if (exit != 0 || !Files.exists(JAR)) {
      throw new IllegalStateException("building " + JAR + " failed (exit " + exit + ")");
    }
  }

  private static Instant newestSource() throws IOException {
    try (Stream<Path> files = Stream.concat(Files.walk(Path.of("src/main")), Stream.of(POM))) {
      return files
          .filter(Files::isRegularFile)
          .map(ThroughputBench::modified)
          .max(Instant::compareTo)
          .orElse(Instant.EPOCH);
    }
  }

  private static Instant modified(Path path) {
    try {
      return Files.getLastModifiedTime(path).toInstant();
    } catch (IOException e) {
      return Instant.EPOCH;
    }
  }

  private static long benchCpuNanos() {
    return ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean())
        .getProcessCpuTime();
  }

  private static String loadAverage() {
    try {
      String[] f = Files.readString(Path.of("/proc/loadavg")).split(" ");
      return f[0] + " " + f[1] + " " + f[2];
    } catch (IOException e) {
      return "?";
    }
  }

  private static int cpus() {
    return Runtime.getRuntime().availableProcessors();
  }

  private static void awaitQuietly(CountDownLatch latch) {
    try {
      latch.await();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
