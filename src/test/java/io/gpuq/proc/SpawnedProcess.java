package io.gpuq.proc;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** A real child process for tests; closing it kills its whole tree and reaps it. */
public final class SpawnedProcess implements AutoCloseable {

  private final Process process;
  private final BufferedReader stdout;

  private SpawnedProcess(Process process) {
    this.process = process;
    this.stdout =
        new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
  }

  public static SpawnedProcess start(String... command) {
    return start(List.of(command));
  }

  public static SpawnedProcess start(List<String> command) {
    try {
      return new SpawnedProcess(
          new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.INHERIT).start());
    } catch (IOException e) {
      throw new UncheckedIOException("cannot start " + command, e);
    }
  }

  /**
   * Python that holds {@code megabytes} of touched (hence resident) memory, prints "ready" and
   * sleeps.
   */
  public static SpawnedProcess pythonHolding(int megabytes) {
    SpawnedProcess python =
        start(
            "python3",
            "-c",
            "import time\n"
                + "data = b'\\x01' * ("
                + megabytes
                + " << 20)\n"
                + "print('ready', flush=True)\n"
                + "time.sleep(600)\n");
    python.awaitLine("ready");
    return python;
  }

  public long pid() {
    return process.pid();
  }

  public Process process() {
    return process;
  }

  /** The next line the process writes to stdout. */
  public String readLine() {
    try {
      String line = stdout.readLine();
      if (line == null) {
        throw new IllegalStateException("process " + pid() + " closed stdout");
      }
      return line;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  public void awaitLine(String expected) {
    String line = readLine();
    if (!line.equals(expected)) {
      throw new IllegalStateException("expected '" + expected + "' but the process said " + line);
    }
  }

  /** Kills the tree (descendants first, so none escapes to pid 1) and reaps the process. */
  public void kill() {
    process.descendants().forEach(ProcessHandle::destroyForcibly);
    process.destroyForcibly();
    try {
      if (!process.waitFor(10, TimeUnit.SECONDS)) {
        throw new IllegalStateException("process " + pid() + " did not die");
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  @Override
  public void close() {
    kill();
  }
}
