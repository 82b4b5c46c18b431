package io.gpuq.bench;

import io.gpuq.isolation.Account;
import io.gpuq.isolation.SystemAccounts;
import io.gpuq.job.JobPlacement;
import io.gpuq.launch.JobFiles;
import io.gpuq.launch.LaunchRequest;
import io.gpuq.launch.RunningWorker;
import io.gpuq.launch.SpawnMechanism;
import io.gpuq.launch.WorkerLauncher;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Clock;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;

/**
 * What starting a worker costs with each {@link SpawnMechanism}: {@code n} workers running {@code
 * /bin/true} through {@link WorkerLauncher} (wrapper shell and exit file included), {@code
 * inflight} at a time, each waited for until reaped. CPU is the JVM's own ({@code utime + stime})
 * and its reaped children's ({@code cutime + cstime}: the whole wrapper-and-program tree, plus the
 * {@code jspawnhelper} and {@code setsid} execs of the ProcessBuilder path), both from
 * /proc/self/stat in 10 ms ticks. Rounds alternate the mechanisms; the median round counts.
 *
 * <p>With {@code account=NAME} (as root) a third variant starts each worker as gpuq's jobs of other
 * owners start: the wrapper drops the program to that account with {@code setpriv}, and the job's
 * work directory is created for it.
 *
 * <p>Usage: {@code bench/run SpawnBench [n=1000] [inflight=8] [rounds=3] [warmup=200]
 * [account=NAME]}
 */
public final class SpawnBench {

  private record Round(double seconds, long jvmNanos, long childNanos, int spawns) {
    double perSecond() {
      return spawns / seconds;
    }

    double jvmMillisPerSpawn() {
      return jvmNanos / 1e6 / spawns;
    }

    double childMillisPerSpawn() {
      return childNanos / 1e6 / spawns;
    }

    double totalMillisPerSpawn() {
      return jvmMillisPerSpawn() + childMillisPerSpawn();
    }
  }

  /** One way of starting workers: a mechanism, and the account the program drops to, if any. */
  private record Variant(String name, WorkerLauncher launcher, Account switchTo) {}

  public static void main(String[] args) throws Exception {
    BenchArgs bench = new BenchArgs(args);
    int n = bench.getInt("n", 1000);
    int inflight = bench.getInt("inflight", 8);
    int rounds = bench.getInt("rounds", 3);
    int warmup = bench.getInt("warmup", 200);
    // As root: also start workers that drop to this account (setpriv), as jobs of other owners do.
    String account = bench.get("account", "");
    bench.requireAllRead();

    Path root = Files.createTempDirectory("gpuq-spawn-bench-");
    // Workers of another account must pass through to their work directories.
    Files.setPosixFilePermissions(root, PosixFilePermissions.fromString("rwx--x--x"));
    List<Variant> variants = new ArrayList<>();
    for (SpawnMechanism mechanism : SpawnMechanism.values()) {
      JobFiles files = new JobFiles(root.resolve(mechanism.name().toLowerCase()));
      variants.add(
          new Variant(
              mechanism.name(), new WorkerLauncher(files, Clock.systemUTC(), mechanism), null));
    }
    if (!account.isEmpty()) {
      Account other = new SystemAccounts().resolve(account, "account");
      JobFiles files = new JobFiles(root.resolve("as-" + account));
      variants.add(
          new Variant(
              "POSIX_SPAWN as " + account,
              new WorkerLauncher(files, Clock.systemUTC(), SpawnMechanism.POSIX_SPAWN),
              other));
    }
    ExecutorService threads = Executors.newFixedThreadPool(inflight);
    try {
      for (Variant variant : variants) {
        run(variant, warmup, threads, inflight);
      }
      Map<String, List<Round>> results = new LinkedHashMap<>();
      for (int r = 0; r < rounds; r++) {
        for (Variant variant : variants) {
          Round round = run(variant, n, threads, inflight);
          results.computeIfAbsent(variant.name(), k -> new ArrayList<>()).add(round);
          System.out.printf(
              "round %d %-24s %7.0f spawns/s  CPU per spawn: JVM %.2f ms + children %.2f ms"
                  + " = %.2f ms%n",
              r + 1,
              variant.name(),
              round.perSecond(),
              round.jvmMillisPerSpawn(),
              round.childMillisPerSpawn(),
              round.totalMillisPerSpawn());
        }
      }
      System.out.printf(
          "%n/bin/true workers, n=%d, %d in flight, %d cores; median of %d rounds%n",
          n, inflight, Runtime.getRuntime().availableProcessors(), rounds);
      System.out.printf(
          "%-24s %9s %12s %12s %12s%n", "variant", "spawns/s", "JVM ms", "children ms", "total ms");
      Map<String, Round> median = new LinkedHashMap<>();
      results.forEach(
          (name, list) -> {
            Round m = medianByTotal(list);
            median.put(name, m);
            System.out.printf(
                "%-24s %9.0f %12.2f %12.2f %12.2f%n",
                name,
                m.perSecond(),
                m.jvmMillisPerSpawn(),
                m.childMillisPerSpawn(),
                m.totalMillisPerSpawn());
          });
      Round posix = median.get(SpawnMechanism.POSIX_SPAWN.name());
      printRatio("posix_spawn / ProcessBuilder", posix, median.get("PROCESS_BUILDER"));
      if (!account.isEmpty()) {
        printRatio("as " + account + " / as gpuq", median.get("POSIX_SPAWN as " + account), posix);
      }
    } finally {
      threads.shutdownNow();
      deleteTree(root);
    }
  }

  private static void printRatio(String what, Round a, Round b) {
    System.out.printf(
        "%s: spawns/s %.2fx, CPU per spawn %.2f (JVM %.2f, children %.2f)%n",
        what,
        a.perSecond() / b.perSecond(),
        a.totalMillisPerSpawn() / b.totalMillisPerSpawn(),
        a.jvmMillisPerSpawn() / b.jvmMillisPerSpawn(),
        a.childMillisPerSpawn() / b.childMillisPerSpawn());
  }

  private static final AtomicInteger jobs = new AtomicInteger();

  private static Round run(Variant variant, int n, ExecutorService threads, int inflight)
      throws Exception {
    AtomicInteger left = new AtomicInteger(n);
    long pid = ProcessHandle.current().pid();
    CpuSnapshot before = CpuSnapshot.of(pid);
    long start = System.nanoTime();
    List<Future<?>> workers = new ArrayList<>();
    for (int t = 0; t < inflight; t++) {
      workers.add(
          threads.submit(
              () -> {
                while (left.getAndDecrement() > 0) {
                  RunningWorker worker =
                      variant
                          .launcher()
                          .launch(request("job-" + jobs.incrementAndGet(), variant.switchTo()));
                  Integer code = worker.exitCode().get();
                  if (code == null || code != 0) {
                    throw new IllegalStateException("/bin/true exited with " + code);
                  }
                }
                return null;
              }));
    }
    for (Future<?> worker : workers) {
      worker.get();
    }
    double seconds = (System.nanoTime() - start) / 1e9;
    CpuSnapshot after = CpuSnapshot.of(pid);
    return new Round(
        seconds, after.processNanos() - before.processNanos(), after.childrenNanosSince(before), n);
  }

  private static LaunchRequest request(String jobId, Account switchTo) {
    return new LaunchRequest(
        jobId,
        1,
        List.of("/bin/true"),
        null,
        Map.of("PATH", "/usr/bin:/bin"),
        switchTo,
        List.of(),
        null,
        JobPlacement.cpuOnly("bench"),
        io.gpuq.job.HostResources.ONE_CORE,
        false);
  }

  private static Round medianByTotal(List<Round> rounds) {
    List<Round> sorted =
        rounds.stream().sorted(Comparator.comparingDouble(Round::totalMillisPerSpawn)).toList();
    return sorted.get(sorted.size() / 2);
  }

  private static void deleteTree(Path root) throws IOException {
    try (Stream<Path> paths = Files.walk(root)) {
      paths
          .sorted(Comparator.reverseOrder())
          .forEach(
              p -> {
                try {
                  Files.delete(p);
                } catch (IOException e) {
                  // Left for the OS to clean from /tmp.
                }
              });
    }
  }
}
