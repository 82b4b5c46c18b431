package io.gpuq.support;

import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

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

  /** Starts gpuq on a free port and waits until its health endpoint answers. */
  public static GpuqProcess start(Path dataDir, String token, String... extraArgs)
      throws IOException, InterruptedException {
    int port = freePort();
    String classpath =
        System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
    List<String> argv = new ArrayList<>();
    argv.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    argv.add("-Xmx512m");
    argv.add("-XX:TieredStopAtLevel=1");
    argv.add("-cp");
    argv.add(classpath);
    argv.add("io.gpuq.GpuqApplication");
    argv.add("--server.port=" + port);
    argv.add("--gpuq.data-dir=" + dataDir);
    argv.add("--gpuq.gpu.backend=emulated");
    argv.add("--gpuq.auth.tokens[0].name=crash");
    argv.add("--gpuq.auth.tokens[0].token=" + token);
    argv.add("--gpuq.auth.tokens[0].role=ADMIN");
    if (List.of(extraArgs).stream().noneMatch(arg -> arg.startsWith("--gpuq.worker.run-as="))) {
      argv.add(TestAccounts.runAsSelfArgument());
    }
    argv.addAll(List.of(extraArgs));
    Path log = dataDir.resolve("gpuq-" + System.nanoTime() + ".log");
    Process process =
        new ProcessBuilder(argv)
            .redirectErrorStream(true)
            .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()))
            .start();
    GpuqProcess gpuq = new GpuqProcess(process, port, log);
    gpuq.awaitHealthy(Duration.ofSeconds(120));
    return gpuq;
  }

  public HttpApi api(String token) {
    return new HttpApi(port, token);
  }

  public long pid() {
    return process.pid();
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
