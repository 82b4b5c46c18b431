package io.gpuq.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * How long gpuq takes from {@code java -jar} to {@code /actuator/health} answering 200, started
 * {@code runs} times from the packaged jar with a fresh data directory (H2) and emulated GPUs each
 * time; and where that time goes: milestones of the start-up read from gpuq's own log, the CPU time
 * the JVM spent until it was ready (steadier than wall time on a shared machine), and optionally a
 * JFR summary of one more start.
 *
 * <p>Usage: {@code bench/run StartupBench [runs=5] [launch=jar|cds] [jvm="..."] [args="..."]
 * [profile=false|true] [build=true] [jar=target/gpuq-0.1.0-SNAPSHOT.jar]}
 *
 * <ul>
 *   <li>{@code launch=jar}: {@code java -XX:TieredStopAtLevel=1 -jar target/gpuq-*.jar}, the
 *       README's command.
 *   <li>{@code launch=cds}: as the Docker image runs it: the jar extracted by Spring Boot's {@code
 *       -Djarmode=tools extract}, a class-data-sharing archive made by one training run that stops
 *       once the context is refreshed ({@code -Dspring.context.exit=onRefresh}), then {@code java
 *       -XX:SharedArchiveFile=... -jar extracted/gpuq.jar}. The training run is not timed.
 *   <li>{@code jvm}: gpuq's JVM options (default: what the README and the Dockerfile use); {@code
 *       args}: more arguments for gpuq, such as {@code --spring.main.lazy-initialization=true}.
 *   <li>{@code jar}: another build's jar (a copy kept aside), to compare two builds alternately in
 *       the same minutes; the default is built first when it is older than the sources.
 * </ul>
 */
public final class StartupBench {

  /** Log lines that mark a stage of the start-up, in the order they appear. */
  private static final Map<String, Pattern> MILESTONES = milestones();

  private static final Pattern LOG_TIME =
      Pattern.compile("^(\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d\\.\\d+(?:Z|[+-]\\d\\d:\\d\\d))");

  private static Map<String, Pattern> milestones() {
    Map<String, Pattern> m = new LinkedHashMap<>();
    m.put(
        "first log line (JVM and logging up)",
        Pattern.compile("Starting (AOT-processed )?GpuqApplication"));
    m.put("Tomcat initialized", Pattern.compile("Tomcat initialized with port"));
    m.put("web context created", Pattern.compile("Root WebApplicationContext: initialization"));
    m.put("database pool open", Pattern.compile("HikariPool-\\d+ - Start completed"));
    m.put("Flyway done", Pattern.compile("Successfully applied|Schema .* is up to date"));
    m.put(
        "JPA EntityManagerFactory ready", Pattern.compile("Initialized JPA EntityManagerFactory"));
    m.put("Tomcat started", Pattern.compile("Tomcat started on port"));
    m.put(
        "'Started GpuqApplication' line",
        Pattern.compile("Started (AOT-processed )?GpuqApplication in"));
    return m;
  }

  record Settings(
      int runs,
      String launch,
      List<String> jvm,
      List<String> args,
      boolean profile,
      boolean build,
      Path jar) {

    static Settings parse(String[] argv) {
      BenchArgs given = new BenchArgs(argv);
      Settings s =
          new Settings(
              given.getInt("runs", 5),
              given.get("launch", "jar"),
              words(given.get("jvm", String.join(" ", GpuqServer.DEFAULT_JVM_OPTIONS))),
              words(given.get("args", "")),
              Boolean.parseBoolean(given.get("profile", "false")),
              Boolean.parseBoolean(given.get("build", "true")),
              Path.of(given.get("jar", ThroughputBench.JAR.toString())));
      given.requireAllRead();
      if (!List.of("jar", "cds").contains(s.launch)) {
        throw new IllegalArgumentException("launch=jar|cds, not " + s.launch);
      }
      return s;
    }

    private static List<String> words(String value) {
      return value.isBlank() ? List.of() : List.of(value.trim().split("\\s+"));
    }
  }

  /** One start: wall time to health 200, milestones (ms after the spawn), CPU time at health. */
  record Start(long healthMillis, Map<String, Long> milestoneMillis, long cpuMillis) {}

  public static void main(String[] argv) throws Exception {
    Settings settings = Settings.parse(argv);
    String loadAtStart = loadAverage();
    Path jar = settings.jar;
    if (jar.equals(ThroughputBench.JAR)) {
      ThroughputBench.ensureJar(settings.build);
    }
    List<String> jvm = new ArrayList<>(settings.jvm);
    // Both go to the training run too: an archive only serves a JVM started the way it was made.
    if (settings.launch.equals("cds")) {
      jar = CdsArchive.prepare(jar, settings.jvm, settings.args).applyTo(jvm);
    }
    System.out.printf(
        "StartupBench: %d starts of %s (launch=%s), JVM options %s, gpuq arguments %s; %d CPUs;"
            + " load average at start: %s%n",
        settings.runs,
        jar,
        settings.launch,
        jvm,
        settings.args,
        Runtime.getRuntime().availableProcessors(),
        loadAtStart);

    List<Start> starts = new ArrayList<>();
    for (int i = 1; i <= settings.runs; i++) {
      Start start = startOnce(jar, jvm, settings.args);
      starts.add(start);
      System.out.printf(
          "  start %d: health 200 after %5d ms, 'Started' line after %5d ms, CPU %5d ms%n",
          i,
          start.healthMillis,
          start.milestoneMillis.getOrDefault("'Started GpuqApplication' line", -1L),
          start.cpuMillis);
    }
    report(starts);
    System.out.printf("load average at end: %s%n", loadAverage());

    if (settings.profile) {
      steps(jvm, settings.args);
      profile(jar, jvm, settings.args);
    }
  }

  private static Start startOnce(Path jar, List<String> jvm, List<String> args) throws IOException {
    Instant spawned = Instant.now();
    try (GpuqServer server = GpuqServer.start(jar, 8, jvm, args)) {
      long health = server.startup().toMillis();
      long cpu = CpuSnapshot.of(server.pid()).processNanos() / 1_000_000;
      return new Start(health, milestones(server.log(), spawned), cpu);
    }
  }

  /** Milliseconds from the spawn to the first log line that matches each milestone. */
  static Map<String, Long> milestones(Path log, Instant spawned) throws IOException {
    Map<String, Long> found = new LinkedHashMap<>();
    for (String line : Files.readAllLines(log)) {
      Matcher time = LOG_TIME.matcher(line);
      if (!time.find()) {
        continue;
      }
      for (Map.Entry<String, Pattern> milestone : MILESTONES.entrySet()) {
        if (!found.containsKey(milestone.getKey()) && milestone.getValue().matcher(line).find()) {
          try {
            Instant at = OffsetDateTime.parse(time.group(1)).toInstant();
            found.put(milestone.getKey(), at.toEpochMilli() - spawned.toEpochMilli());
          } catch (DateTimeParseException unreadable) {
            // Not a stamp after all: the milestone is looked for in the next lines.
          }
        }
      }
    }
    return found;
  }

  private static void report(List<Start> starts) {
    System.out.println();
    System.out.printf(
        "%-40s %8s %8s %8s   (ms after the spawn of java)%n", "", "median", "min", "max");
    for (String milestone : MILESTONES.keySet()) {
      List<Long> values = new ArrayList<>();
      for (Start start : starts) {
        Long value = start.milestoneMillis.get(milestone);
        if (value != null) {
          values.add(value);
        }
      }
      if (!values.isEmpty()) {
        printRow(milestone, values);
      }
    }
    printRow("health 200", starts.stream().map(Start::healthMillis).toList());
    printRow(
        "CPU time of gpuq's JVM at health 200", starts.stream().map(Start::cpuMillis).toList());
  }

  private static void printRow(String name, List<Long> values) {
    List<Long> sorted = new ArrayList<>(values);
    Collections.sort(sorted);
    System.out.printf(
        "%-40s %8d %8d %8d%n", name, median(sorted), sorted.get(0), sorted.get(sorted.size() - 1));
  }

  private static long median(List<Long> sorted) {
    int n = sorted.size();
    return n % 2 == 1 ? sorted.get(n / 2) : (sorted.get(n / 2 - 1) + sorted.get(n / 2)) / 2;
  }

  /**
   * One more start with Spring's start-up recorder ({@link StartupSteps}), from the bench's class
   * path rather than the jar: which beans and steps the time goes to.
   */
  private static void steps(List<String> jvm, List<String> args)
      throws IOException, InterruptedException {
    Path dataDir = Files.createTempDirectory("gpuq-startup-steps-");
    List<String> command =
        new ArrayList<>(
            GpuqServer.command(ThroughputBench.JAR, GpuqServer.freePort(), dataDir, 8, jvm, args));
    int jarOption = command.indexOf("-jar");
    command.set(jarOption, "-cp");
    command.set(jarOption + 1, System.getProperty("java.class.path"));
    command.add(jarOption + 2, StartupSteps.class.getName());
    Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
    for (String line : new String(process.getInputStream().readAllBytes()).split("\n")) {
      if (!LOG_TIME.matcher(line).find()) { // gpuq's own log lines are not the report
        System.out.println(line);
      }
    }
    process.waitFor();
    GpuqServer.deleteTree(dataDir);
  }

  /** One more start under JFR (which slows it down), summarised by {@link JfrHotSpots}. */
  private static void profile(Path jar, List<String> jvm, List<String> args) throws IOException {
    Path recording = Files.createTempFile("gpuq-startup-", ".jfr");
    List<String> profiled = new ArrayList<>(jvm);
    profiled.add("-XX:FlightRecorderOptions:stackdepth=512");
    profiled.add("-XX:StartFlightRecording=settings=profile,filename=" + recording);
    try (GpuqServer server = GpuqServer.start(jar, 8, profiled, args)) {
      System.out.printf(
          "%nUnder JFR (settings=profile), healthy after %d ms; the recording covers the start-up"
              + " and the shutdown:%n",
          server.startup().toMillis());
    }
    JfrHotSpots.print(recording, 25);
    System.out.println("recording: " + recording);
  }

  private static String loadAverage() {
    try {
      return Files.readString(Path.of("/proc/loadavg")).trim();
    } catch (IOException e) {
      return "?";
    }
  }
}
