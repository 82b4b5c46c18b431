package io.gpuq.support;

import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** gpuq as a real separate JVM, for tests that crash it with SIGKILL. */
public final class GpuqProcess implements AutoCloseable {

  private final Process process;
  private final int port;
  private final Path log;

  private GpuqProcess(Process process, int port, Path log) {
    this.process = process;
    this.port = port;
    this.log = log;
  }

  /** How a gpuq that was expected to refuse to start ended. */
  public record Exited(int exitCode, String output) {}

  /** Starts gpuq on a free port and waits until its health endpoint answers. */
  public static GpuqProcess start(Path dataDir, String token, String... extraArgs)
      throws IOException, InterruptedException {
    return start(List.of(), dataDir, token, extraArgs);
  }

  /**
   * Starts gpuq with {@code commandPrefix} before {@code java} (such as {@code setpriv ... --}) and
   * waits until its health endpoint answers.
   */
  public static GpuqProcess start(
      List<String> commandPrefix, Path dataDir, String token, String... extraArgs)
      throws IOException, InterruptedException {
    return start(commandPrefix, PackagedGpuq.launcher(), dataDir, token, extraArgs);
  }

  private static GpuqProcess start(
      List<String> commandPrefix,
      List<String> launcher,
      Path dataDir,
      String token,
      String... extraArgs)
      throws IOException, InterruptedException {
    for (int tries = 1; ; tries++) {
      GpuqProcess gpuq = launch(commandPrefix, launcher, dataDir, token, extraArgs);
      try {
        gpuq.awaitHealthy(Duration.ofSeconds(120));
        return gpuq;
      } catch (RuntimeException | InterruptedException | IOException e) {
        gpuq.crash();
        if (tries == PORT_TRIES || !gpuq.lostItsPort()) {
          throw e;
        }
      }
    }
  }

  // freePort() closes the port before gpuq binds it: another test JVM (failsafe runs several)
  // or an outgoing connection may take it in between, and then gpuq exits. Another port will do.
  private static final int PORT_TRIES = 3;

  private boolean lostItsPort() throws IOException {
    return output().contains("Port " + port + " was already in use");
  }

  /**
   * Starts gpuq from its executable jar with the README's command, {@code java
   * -XX:TieredStopAtLevel=1 -XX:+ExitOnOutOfMemoryError -jar gpuq.jar}, and waits until its health
   * endpoint answers. Only failsafe has a freshly built jar ({@link PackagedGpuq#packagedJar()}).
   */
  public static GpuqProcess startFromJar(Path jar, Path dataDir, String token, String... extraArgs)
      throws IOException, InterruptedException {
    List<String> launcher =
        List.of("-XX:TieredStopAtLevel=1", "-XX:+ExitOnOutOfMemoryError", "-jar", jar.toString());
    return start(List.of(), launcher, dataDir, token, extraArgs);
  }

  /**
   * Starts gpuq as {@link #start(Path, String, String...)} does, with {@code jvmOptions} after the
   * usual ones (so that {@code -Xmx64m} wins over the tests' {@code -Xmx512m}).
   */
  public static GpuqProcess startWithJvmOptions(
      List<String> jvmOptions, Path dataDir, String token, String... extraArgs)
      throws IOException, InterruptedException {
    List<String> launcher = new ArrayList<>(PackagedGpuq.launcher());
    int classPathOrJar = Math.max(launcher.indexOf("-cp"), launcher.indexOf("-jar"));
    launcher.addAll(classPathOrJar, jvmOptions);
    return start(List.of(), launcher, dataDir, token, extraArgs);
  }

  public boolean hasExited() {
    return !process.isAlive();
  }

  /**
   * Waits until the JVM has exited by itself.
   *
   * @return its exit status
   * @throws AssertionError when it still runs after {@code timeout} (it is then killed)
   */
  public int awaitExit(Duration timeout) throws IOException, InterruptedException {
    if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
      crash();
      throw new AssertionError(
          "gpuq was expected to exit but still ran after " + timeout + ":\n" + output());
    }
    return process.exitValue();
  }

  /**
   * Runs a gpuq that is expected to refuse to start, and waits until it has exited.
   *
   * @throws AssertionError when it still runs after {@code timeout} (it is then killed)
   */
  public static Exited runToExit(
      List<String> commandPrefix, Path dataDir, String token, Duration timeout, String... extraArgs)
      throws IOException, InterruptedException {
    GpuqProcess gpuq = launch(commandPrefix, dataDir, token, extraArgs);
    if (!gpuq.process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
      gpuq.crash();
      throw new AssertionError(
          "gpuq was expected to exit but still ran after " + timeout + ":\n" + gpuq.output());
    }
    return new Exited(gpuq.process.exitValue(), gpuq.output());
  }

  /**
   * Starts gpuq as the README's single operator does: from {@code directory}, with no token and no
   * {@code gpuq.worker.run-as}, its data directory the default {@code ./data} there (the admin
   * token is then {@code directory/data/admin.token}); waits until its health endpoint answers.
   */
  public static GpuqProcess startAsOperatorIn(Path directory, String... extraArgs)
      throws IOException, InterruptedException {
    for (int tries = 1; ; tries++) {
      int port = freePort();
      List<String> argv = new ArrayList<>();
      argv.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
      argv.addAll(PackagedGpuq.launcher());
      argv.add("--server.port=" + port);
      argv.add("--gpuq.gpu.backend=emulated");
      argv.addAll(TestCores.argumentsBeside(extraArgs));
      argv.addAll(List.of(extraArgs));
      Path log = directory.resolve("gpuq-" + System.nanoTime() + ".log");
      Process process =
          new ProcessBuilder(argv)
              .directory(directory.toFile())
              .redirectErrorStream(true)
              .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()))
              .start();
      GpuqProcess gpuq = new GpuqProcess(process, port, log);
      try {
        gpuq.awaitHealthy(Duration.ofSeconds(120));
        return gpuq;
      } catch (RuntimeException | InterruptedException | IOException e) {
        gpuq.crash();
        if (tries == PORT_TRIES || !gpuq.lostItsPort()) {
          throw e;
        }
      }
    }
  }

  private static GpuqProcess launch(
      List<String> commandPrefix, Path dataDir, String token, String... extraArgs)
      throws IOException {
    return launch(commandPrefix, PackagedGpuq.launcher(), dataDir, token, extraArgs);
  }

  private static GpuqProcess launch(
      List<String> commandPrefix,
      List<String> launcher,
      Path dataDir,
      String token,
      String... extraArgs)
      throws IOException {
    int port = freePort();
    List<String> argv = new ArrayList<>(commandPrefix);
    argv.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    argv.addAll(launcher);
    argv.add("--server.port=" + port);
    argv.add("--gpuq.data-dir=" + dataDir);
    argv.add("--gpuq.gpu.backend=emulated");
    argv.add("--gpuq.auth.tokens[0].name=crash");
    argv.add("--gpuq.auth.tokens[0].token=" + token);
    argv.add("--gpuq.auth.tokens[0].role=ADMIN");
    if (List.of(extraArgs).stream().noneMatch(arg -> arg.startsWith("--gpuq.worker.run-as="))) {
      argv.add(TestAccounts.runAsSelfArgument());
    }
    argv.addAll(TestCores.argumentsBeside(extraArgs));
    argv.addAll(List.of(extraArgs));
    Files.createDirectories(dataDir);
    Path log = dataDir.resolve("gpuq-" + System.nanoTime() + ".log");
    Process process =
        new ProcessBuilder(argv)
            .redirectErrorStream(true)
            .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()))
            .start();
    return new GpuqProcess(process, port, log);
  }

  /** The port its web server listens on, on 127.0.0.1. */
  public int port() {
    return port;
  }

  public HttpApi api(String token) {
    return new HttpApi(port, token);
  }

  /** The JVM's pid (a command prefix such as {@code setpriv} execs it, keeping the pid). */
  public long pid() {
    return process.pid();
  }

  /** What gpuq has printed so far (stdout and stderr). */
  public String output() throws IOException {
    return Files.readString(log);
  }

  /** Kills the JVM with SIGKILL: no shutdown hook, no graceful anything. */
  public void crash() throws InterruptedException {
    process.destroyForcibly();
    process.waitFor();
  }

  @Override
  public void close() throws InterruptedException {
    if (process.isAlive()) {
      process.destroy();
      process.waitFor();
    }
  }

  private void awaitHealthy(Duration timeout) throws InterruptedException, IOException {
    HttpApi anonymous = new HttpApi(port, null);
    long deadline = System.nanoTime() + timeout.toNanos();
    while (System.nanoTime() < deadline) {
      if (!process.isAlive()) {
        throw new IllegalStateException("gpuq exited with " + process.exitValue() + "; see " + log);
      }
      try {
        if (anonymous.get("/actuator/health").status() == 200) {
          return;
        }
      } catch (RuntimeException notYet) {
        // not listening yet
      }
      Thread.sleep(250);
    }
    throw new IllegalStateException("gpuq did not become healthy in " + timeout + "; see " + log);
  }

  private static int freePort() throws IOException {
    try (ServerSocket socket = new ServerSocket(0)) {
      return socket.getLocalPort();
    }
  }
}
