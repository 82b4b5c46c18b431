package io.gpuq.bench;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.HttpURLConnection;
import java.net.ServerSocket;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * gpuq started from its packaged jar as a separate process, as a user runs it: a free port, a fresh
 * data directory, 8 CPU slots, emulated GPUs and one admin token. Closing it sends SIGTERM, waits
 * for the graceful shutdown and deletes the data directory.
 */
public final class GpuqServer implements AutoCloseable {

  static final String TOKEN = "bench-token-0123456789";

  private final Process process;
  private final Path dataDir;
  private final Path log;
  private final int port;
  private Duration startup;

  private GpuqServer(Process process, Path dataDir, Path log, int port) {
    this.process = process;
    this.dataDir = dataDir;
    this.log = log;
    this.port = port;
  }

  /**
   * The JVM options gpuq runs with when started as the README and the Dockerfile start it (C1
   * only); the benchmarks use them unless told otherwise.
   */
  public static final List<String> DEFAULT_JVM_OPTIONS = List.of("-XX:TieredStopAtLevel=1");

  /** Starts the jar and returns once {@code /actuator/health} answers 200. */
  static GpuqServer start(Path jar, int cpuSlots, List<String> jvmOptions) throws IOException {
    return start(jar, cpuSlots, jvmOptions, List.of());
  }

  /** As {@link #start(Path, int, List)}, with more arguments for gpuq after the usual ones. */
  static GpuqServer start(Path jar, int cpuSlots, List<String> jvmOptions, List<String> gpuqArgs)
      throws IOException {
    Path dataDir = Files.createTempDirectory("gpuq-bench-");
    Path log = Files.createTempFile("gpuq-bench-server-", ".log");
    int port = freePort();
    List<String> command = command(jar, port, dataDir, cpuSlots, jvmOptions, gpuqArgs);
    long t0 = System.nanoTime();
    Process process =
        new ProcessBuilder(command)
            .redirectErrorStream(true)
            .redirectOutput(log.toFile())
            .redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")))
            .start();
    GpuqServer server = new GpuqServer(process, dataDir, log, port);
    Runtime.getRuntime().addShutdownHook(new Thread(server::killQuietly));
    long deadline = t0 + TimeUnit.SECONDS.toNanos(180);
    while (!healthy(port)) {
      if (!process.isAlive()) {
        String tail = tail(log, 40);
        server.deleteDataDir();
        throw new IllegalStateException(
            "gpuq exited with " + process.exitValue() + " during start-up; its log:\n" + tail);
      }
      if (System.nanoTime() > deadline) {
        server.close();
        throw new IllegalStateException("gpuq was not healthy after 180 s; log: " + log);
      }
      sleep(20); // the start-up time is measured to this resolution (StartupBench)
    }
    server.startup = Duration.ofNanos(System.nanoTime() - t0);
    return server;
  }

  /**
   * The command line of a gpuq on {@code port} with {@code dataDir}: 8 CPU slots, emulated GPUs and
   * one admin token, then {@code gpuqArgs}.
   */
  static List<String> command(
      Path jar,
      int port,
      Path dataDir,
      int cpuSlots,
      List<String> jvmOptions,
      List<String> gpuqArgs) {
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.addAll(jvmOptions);
    command.addAll(
        List.of(
            "-jar",
            jar.toString(),
            "--server.port=" + port,
            "--gpuq.data-dir=" + dataDir,
            "--gpuq.scheduler.cpu-slots=" + cpuSlots,
            // As many cores as slots, whatever the machine has: each job takes a core (issue 27),
            // and the bench runs as many at once as xargs -P does, as it did before.
            "--gpuq.node.cpus=" + cpuSlots,
            "--gpuq.gpu.backend=emulated",
            "--gpuq.auth.tokens[0].name=bench",
            "--gpuq.auth.tokens[0].token=" + TOKEN,
            "--gpuq.auth.tokens[0].role=ADMIN",
            // As before isolation, so that figures stay comparable: no account switch per job.
            io.gpuq.support.TestAccounts.runAsSelfArgument()));
    command.addAll(gpuqArgs);
    return command;
  }

  int port() {
    return port;
  }

  long pid() {
    return process.pid();
  }

  Duration startup() {
    return startup;
  }

  Path log() {
    return log;
  }

  /** SIGTERM, a graceful shutdown of up to 30 s, then the data directory and the log go. */
  @Override
  public void close() {
    process.destroy();
    try {
      if (!process.waitFor(30, TimeUnit.SECONDS)) {
        System.out.println("gpuq did not stop within 30 s of SIGTERM; killing it");
        process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      process.destroyForcibly();
    }
    deleteDataDir();
    deleteQuietly(log);
  }

  private void killQuietly() {
    if (process.isAlive()) {
      process.destroyForcibly();
    }
    deleteDataDir();
  }

  private void deleteDataDir() {
    deleteTree(dataDir);
  }

  static void deleteTree(Path dir) {
    if (!Files.exists(dir)) {
      return;
    }
    try (Stream<Path> all = Files.walk(dir)) {
      all.sorted(Comparator.reverseOrder()).forEach(GpuqServer::deleteQuietly);
    } catch (IOException e) {
      System.out.println("could not delete " + dir + ": " + e);
    }
  }

  private static void deleteQuietly(Path path) {
    try {
      Files.deleteIfExists(path);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static boolean healthy(int port) {
    try {
      HttpURLConnection connection =
          (HttpURLConnection)
              URI.create("http://127.0.0.1:" + port + "/actuator/health").toURL().openConnection();
      connection.setConnectTimeout(500);
      connection.setReadTimeout(2000);
      try {
        return connection.getResponseCode() == 200;
      } finally {
        connection.disconnect();
      }
    } catch (IOException e) {
      return false;
    }
  }

  static int freePort() throws IOException {
    try (ServerSocket socket = new ServerSocket(0)) {
      return socket.getLocalPort();
    }
  }

  static String tail(Path file, int lines) {
    try {
      List<String> all = Files.readAllLines(file);
      return String.join("\n", all.subList(Math.max(0, all.size() - lines), all.size()));
    } catch (IOException e) {
      return "(cannot read " + file + ": " + e + ")";
    }
  }

  static void sleep(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }
}
