package io.gpuq.bench;

import io.gpuq.GpuqApplication;
import io.gpuq.support.TestAccounts;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import tools.jackson.databind.JsonNode;

/**
 * Seed 004's workload, side by side: N short RL training runs (REINFORCE on gymnasium's CartPole
 * with a small PyTorch policy, {@code bench/rl/cartpole.py}), each keeping a core busy for a few
 * seconds, done three ways, one after another in each round:
 *
 * <ul>
 *   <li>{@code gpuq}: one sweep of N trials ({@code gpus: 0}) on a gpuq in this JVM, with as many
 *       CPU slots as the machine has cores; with {@code cpus=K}, the template asks for K cores
 *       ({@code resources.cpus}) instead;
 *   <li>{@code pool}: {@code torch.multiprocessing.Pool(8)}, as the seed wrote it;
 *   <li>{@code procs}: 24 processes at once, as the seed's answer suggests;
 *   <li>{@code warm} (issue 36): the gpuq sweep with {@code preload}, its trials forked from one
 *       zygote; by default {@code torch, gymnasium} and what a run imports on its first steps
 *       ({@code torch._dynamo, torch.distributions, gymnasium.envs.classic_control}), {@code
 *       preload=a,b} to change it;
 *   <li>{@code pool2}: {@code Pool(2)}; {@code loky}: joblib's loky backend with {@code n_jobs=2}
 *       (needs joblib in the interpreter);
 *   <li>{@code ray}, {@code ray-reuse}: Ray Tune, one CPU per trial, as many at once as cores,
 *       {@code reuse_actors} false and true (needs {@code ray[tune]}; skipped, saying why, where
 *       Ray cannot be imported or started).
 * </ul>
 *
 * <p>Beside them it prints the physical floor: the least CPU-seconds any way took for the runs (its
 * processes', gpuq's own included; Ray's ways left out, whose workers are not counted) divided by
 * the cores.
 *
 * <p>The makespan is from the start of each way to its last run's end (for gpuq: from the sweep's
 * creation to its last trial's end, as gpuq recorded it). The Python needs torch and gymnasium:
 * {@code python=} names an interpreter that has them; by default a virtual environment in {@code
 * target/rl-venv} is made and filled with pip from its configured index.
 *
 * <p>{@code bench/run RlWorkloadBench [runs=48] [steps=5000] [rounds=1] [pool=8] [procs=24] [cpus=]
 * [python=target/rl-venv/bin/python] [modes=gpuq,pool,procs] [preload=torch,gymnasium,...]}
 *
 * <p>Each way also prints the CPU-seconds its processes took (less affected by a loaded machine
 * than the makespan), and a gpuq way how long its trials held their slots and gpuq's own CPU.
 */
public final class RlWorkloadBench {

  private static final Path SCRIPTS = Path.of("bench/rl").toAbsolutePath();
  private static final HttpClient HTTP = HttpClient.newHttpClient();

  public static void main(String[] args) throws Exception {
    BenchArgs given = new BenchArgs(args);
    int runs = given.getInt("runs", 48);
    int steps = given.getInt("steps", 5000);
    int rounds = given.getInt("rounds", 1);
    int poolWorkers = given.getInt("pool", 8);
    int processes = given.getInt("procs", 24);
    String cpus = given.get("cpus", "");
    String python = given.get("python", "");
    // What the warm way preloads: by default what a run imports, also on its first steps (torch
    // imports torch._dynamo, and with it sympy, at the optimiser's first step; gymnasium its
    // environment's module at make), as gpuq's hint in a trial's log names them.
    List<String> preload =
        List.of(
            given
                .get(
                    "preload",
                    "torch,gymnasium,torch._dynamo,torch.distributions,gymnasium.envs.classic_control")
                .split(","));
    List<String> modes = List.of(given.get("modes", "gpuq,warm,pool,pool2,procs,loky").split(","));
    given.requireAllRead();
    if (!java.lang.management.ManagementFactory.getRuntimeMXBean()
        .getInputArguments()
        .contains("-XX:TieredStopAtLevel=1")) {
      System.out.println(
          "note: gpuq runs in this JVM, with C2 compiling it meanwhile; deployed (README) it runs"
              + " with C1 only: BENCH_JVM_OPTS=-XX:TieredStopAtLevel=1 bench/run RlWorkloadBench");
    }

    String interpreter = python.isEmpty() ? preparedVenv() : python;
    int cores = Runtime.getRuntime().availableProcessors();
    Map<String, List<Double>> makespans = new LinkedHashMap<>();
    for (int round = 1; round <= rounds; round++) {
      for (String mode : modes) {
        double seconds =
            switch (mode) {
              case "gpuq" -> viaGpuq(interpreter, runs, steps, cores, cpus, false, preload);
              case "warm" -> viaGpuq(interpreter, runs, steps, cores, cpus, true, preload);
              case "pool" -> baseline(interpreter, "pool", runs, poolWorkers, steps);
              case "pool2" -> baseline(interpreter, "pool", runs, 2, steps);
              case "loky" -> baseline(interpreter, "loky", runs, 2, steps);
              case "procs" -> baseline(interpreter, "procs", runs, processes, steps);
              case "ray" -> baseline(interpreter, "ray", runs, cores, steps);
              case "ray-reuse" -> baseline(interpreter, "ray-reuse", runs, cores, steps);
              default -> throw new IllegalArgumentException("no mode " + mode);
            };
        if (Double.isNaN(seconds)) {
          continue; // skipped, with its reason printed
        }
        makespans.computeIfAbsent(mode, m -> new ArrayList<>()).add(seconds);
        if (!mode.startsWith("ray")) {
          // Ray's workers are not this JVM's children: their CPU is not in lastCpuSeconds.
          leastCpu.merge(mode, lastCpuSeconds, Math::min);
        }
        System.out.printf(
            "round %d %-6s makespan %8.1f s   CPU %6.1f s (%.2f s per run)   load %s%n",
            round,
            mode,
            seconds,
            lastCpuSeconds,
            lastCpuSeconds / runs,
            Files.readString(Path.of("/proc/loadavg")).trim());
      }
    }
    System.out.printf(
        "%n%d runs of %d CartPole steps, %d cores, rounds=%d (median makespan, s)%n",
        runs, steps, cores, rounds);
    double gpuq = makespans.containsKey("gpuq") ? median(makespans.get("gpuq")) : Double.NaN;
    leastCpu.entrySet().stream()
        .min(Map.Entry.comparingByValue())
        .ifPresent(
            least ->
                System.out.printf(
                    "floor  %8.1f s   the least CPU-seconds any way took, %.1f (%s), / %d cores%n",
                    least.getValue() / cores, least.getValue(), least.getKey(), cores));
    for (Map.Entry<String, List<Double>> entry : makespans.entrySet()) {
      double median = median(entry.getValue());
      System.out.printf(
          "%-6s %8.1f s   %s / gpuq = %.2f%n",
          entry.getKey(), median, entry.getKey(), median / gpuq);
    }
  }

  /**
   * Per way, the least CPU-seconds it took in a round (Ray's ways left out): the floor is the least
   * of them over the cores, the same runs done with the least work any way needed. The {@code
   * procs} way's, used before, counts 24 processes' fight for 2 cores (6.6 CPU-s a run, against 2.2
   * in a pool).
   */
  private static final Map<String, Double> leastCpu = new LinkedHashMap<>();

  /**
   * The CPU-seconds the last way took: its processes' (reaped children of this JVM: a baseline's
   * Python and all it started; gpuq's workers, and its zygote, reaped when gpuq stops it), and for
   * gpuq its own (this JVM's) while the sweep ran. Less affected by a loaded machine than the
   * makespan.
   */
  private static double lastCpuSeconds = Double.NaN;

  /** This JVM's user and system CPU time, its own and its reaped children's, in seconds. */
  private static double[] cpuTimes() throws IOException {
    String stat = Files.readString(Path.of("/proc/self/stat"));
    String[] fields = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
    // Fields 14-17 of proc(5): utime, stime, cutime, cstime, counted from field 3 here.
    double own = (Long.parseLong(fields[11]) + Long.parseLong(fields[12])) / 100.0;
    double children = (Long.parseLong(fields[13]) + Long.parseLong(fields[14])) / 100.0;
    return new double[] {own, children};
  }

  private static double baseline(String python, String mode, int runs, int width, int steps)
      throws IOException, InterruptedException {
    double[] cpu0 = cpuTimes();
    long start = System.nanoTime();
    Path output = Files.createTempFile("rl-baseline-", ".out");
    Path errors = Files.createTempFile("rl-baseline-", ".err");
    Process process =
        new ProcessBuilder(
                python,
                SCRIPTS.resolve("baselines.py").toString(),
                mode,
                Integer.toString(runs),
                Integer.toString(width),
                Integer.toString(steps))
            .redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")))
            .redirectError(errors.toFile())
            .redirectOutput(output.toFile())
            .start();
    if (process.waitFor() == 3 && mode.startsWith("ray")) {
      String why = Files.readString(errors).trim();
      System.out.printf("%-9s skipped: %s%n", mode, why.lines().reduce((a, b) -> b).orElse(why));
      Files.deleteIfExists(errors);
      Files.deleteIfExists(output);
      return Double.NaN;
    }
    Files.deleteIfExists(errors);
    if (process.exitValue() != 0) {
      throw new IllegalStateException(mode + " failed with exit code " + process.exitValue());
    }
    double seconds = (System.nanoTime() - start) / 1e9;
    lastCpuSeconds = cpuTimes()[1] - cpu0[1];
    Files.deleteIfExists(output);
    return seconds;
  }

  private static double viaGpuq(
      String python,
      int runs,
      int steps,
      int cores,
      String cpus,
      boolean warm,
      List<String> preload)
      throws Exception {
    Path dataDir = Files.createTempDirectory("rl-workload-bench-");
    double[] cpu0 = null;
    double seconds;
    try (ConfigurableApplicationContext gpuq =
        new SpringApplicationBuilder(GpuqApplication.class)
            .run(
                "--server.port=0",
                "--gpuq.data-dir=" + dataDir,
                "--gpuq.node-name=bench",
                "--gpuq.gpu.backend=emulated",
                "--gpuq.auth.tokens[0].name=bench",
                "--gpuq.auth.tokens[0].token=" + GpuqServer.TOKEN,
                "--gpuq.auth.tokens[0].role=ADMIN",
                TestAccounts.runAsSelfArgument(),
                "--gpuq.scheduler.cpu-slots=" + cores,
                "--logging.level.io.gpuq=WARN")) {
      String base =
          "http://localhost:" + gpuq.getEnvironment().getProperty("local.server.port") + "/api/v1";
      String seeds =
          IntStream.range(0, runs).mapToObj(Integer::toString).collect(Collectors.joining(","));
      String resources = cpus.isEmpty() ? "{\"gpus\": 0}" : "{\"gpus\": 0, \"cpus\": " + cpus + "}";
      String sweep =
          """
          {"name": "cartpole", "method": "grid", "resources": %s,
           "workingDir": "%s",
           "command": ["%s", "cartpole.py", "{seed}", "%d"],%s
           "parameters": {"seed": {"values": [%s]}}}
          """
              .formatted(
                  resources,
                  SCRIPTS,
                  python,
                  steps,
                  warm ? " \"preload\": " + BenchClient.JSON.writeValueAsString(preload) + "," : "",
                  seeds);
      // gpuq is a daemon: its JVM's start (class loading, first compilations of the launch path)
      // is not the workload's. One job of its own, to its end, before the clock starts.
      String first =
          send("POST", base + "/jobs", "{\"command\": [\"true\"], \"resources\": {\"gpus\": 0}}")
              .get("id")
              .asString();
      long warmUpEnd = System.nanoTime() + TimeUnit.MINUTES.toNanos(2);
      while (!send("GET", base + "/jobs/" + first, null).get("state").asString().equals("SUCCEEDED")
          && System.nanoTime() < warmUpEnd) {
        TimeUnit.MILLISECONDS.sleep(100); // polling gpuq as a client would; not a test's wait
      }
      // gpuq's own CPU with nothing to run, for comparison with its CPU while the sweep runs.
      double idle0 = cpuTimes()[0];
      TimeUnit.SECONDS.sleep(10);
      System.out.printf("  gpuq idle: %.2f s of CPU in 10 s%n", cpuTimes()[0] - idle0);
      cpu0 = cpuTimes();
      long start = System.currentTimeMillis();
      JsonNode created = send("POST", base + "/sweeps", sweep);
      String id = created.get("id").asString();
      JsonNode state = created;
      while (state.get("state").asString().equals("RUNNING")) {
        // Polling gpuq as a client would, once a second (its own CPU counts as gpuq's: it runs in
        // this JVM); the makespan is read from gpuq's record of the last end, not from the poll.
        TimeUnit.SECONDS.sleep(1);
        state = send("GET", base + "/sweeps/" + id, null);
      }
      double own = cpuTimes()[0] - cpu0[0];
      JsonNode trials = state.get("trials");
      if (trials.get("SUCCEEDED").asInt() != runs) {
        throw new IllegalStateException("not every trial succeeded: " + trials);
      }
      seconds = printTrialTimes(base, id, start / 1e3, runs, cores, own);
    } finally {
      GpuqServer.deleteTree(dataDir);
    }
    // The zygote, stopped with gpuq, is reaped by now or soon: its CPU counts among the children.
    TimeUnit.SECONDS.sleep(1);
    double[] cpu1 = cpuTimes();
    lastCpuSeconds = (cpu1[0] - cpu0[0]) + (cpu1[1] - cpu0[1]);
    return seconds;
  }

  /**
   * Where a gpuq way's makespan went: the trials' attempts (claim to end, as gpuq recorded them)
   * against the slots' time (makespan × slots), the rest being time a slot held no trial: before
   * the first claim, between one trial's end and the next one's claim, after the last. Returns the
   * makespan: from the sweep's creation (startEpoch, this machine's clock, as gpuq's) to the last
   * trial's end as gpuq recorded it.
   */
  private static double printTrialTimes(
      String base, String sweepId, double startEpoch, int runs, int slots, double gpuqCpu)
      throws IOException, InterruptedException {
    JsonNode items =
        send("GET", base + "/sweeps/" + sweepId + "/trials?limit=1000&scope=all", null)
            .get("items");
    List<double[]> spans = new ArrayList<>();
    for (JsonNode item : items) {
      JsonNode job = send("GET", base + "/jobs/" + item.get("jobId").asString(), null);
      JsonNode attempt = job.at("/attempts/0");
      spans.add(
          new double[] {
            java.time.Instant.parse(attempt.get("startedAt").asString()).toEpochMilli() / 1e3,
            java.time.Instant.parse(attempt.get("finishedAt").asString()).toEpochMilli() / 1e3
          });
    }
    spans.sort(java.util.Comparator.comparingDouble(span -> span[0]));
    double running = spans.stream().mapToDouble(span -> span[1] - span[0]).sum();
    double first = spans.get(0)[0];
    double last = spans.stream().mapToDouble(span -> span[1]).max().orElse(first);
    System.out.printf(
        "  trials: %.2f s each on average (claim to end); slots busy %.0f %% of first claim to"
            + " last end (%.1f s); gpuq's own CPU while the sweep ran %.1f s%n",
        running / runs, 100 * running / (slots * (last - first)), last - first, gpuqCpu);
    return last - startEpoch;
  }

  private static JsonNode send(String method, String url, String body)
      throws IOException, InterruptedException {
    HttpRequest.Builder request =
        HttpRequest.newBuilder(URI.create(url))
            .header("Authorization", "Bearer " + GpuqServer.TOKEN)
            .header("Content-Type", "application/json");
    request.method(
        method,
        body == null
            ? HttpRequest.BodyPublishers.noBody()
            : HttpRequest.BodyPublishers.ofString(body, StandardCharsets.UTF_8));
    HttpResponse<String> response =
        HTTP.send(request.build(), HttpResponse.BodyHandlers.ofString());
    if (response.statusCode() >= 300) {
      throw new IllegalStateException(method + " " + url + ": " + response.body());
    }
    return BenchClient.JSON.readTree(response.body());
  }

  /** A virtual environment with torch and gymnasium, made once, from pip's configured index. */
  private static String preparedVenv() throws IOException, InterruptedException {
    Path venv = Path.of("target/rl-venv").toAbsolutePath();
    Path python = venv.resolve("bin/python");
    if (run(python.toString(), "-c", "import torch, gymnasium") == 0) {
      return python.toString();
    }
    if (run("python3", "-m", "venv", venv.toString()) != 0
        || run(python.toString(), "-m", "pip", "install", "-q", "torch", "gymnasium") != 0) {
      throw new IllegalStateException(
          "could not install torch and gymnasium into " + venv + "; give python=...");
    }
    return python.toString();
  }

  private static int run(String... command) throws IOException, InterruptedException {
    if (!Files.isExecutable(Path.of(command[0])) && command[0].contains("/")) {
      return 1;
    }
    return new ProcessBuilder(command).inheritIO().start().waitFor();
  }

  private static double median(List<Double> values) {
    List<Double> sorted = values.stream().sorted().toList();
    int middle = sorted.size() / 2;
    return sorted.size() % 2 == 1
        ? sorted.get(middle)
        : (sorted.get(middle - 1) + sorted.get(middle)) / 2;
  }

  private RlWorkloadBench() {}
}
