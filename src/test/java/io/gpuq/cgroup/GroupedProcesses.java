package io.gpuq.cgroup;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Starts test processes the way launch will (docs/design/worker-cgroups.md): a shell, still gpuq's
 * account, writes its own pid into the group's cgroup.procs files and only then execs the command,
 * so nothing of the command ever runs outside the group. Kills whatever it started on close.
 */
public final class GroupedProcesses implements AutoCloseable {

  private final List<Process> started = new ArrayList<>();

  public Process startIn(WorkerCgroup group, String... command) throws IOException {
    StringBuilder script = new StringBuilder();
    for (Path dir : group.directories()) {
      script.append("echo $$ > '").append(dir.resolve("cgroup.procs")).append("' || exit 125\n");
    }
    script.append("exec \"$@\"\n");
    List<String> argv = new ArrayList<>(List.of("/bin/sh", "-c", script.toString(), "sh"));
    argv.addAll(List.of(command));
    Process process = new ProcessBuilder(argv).redirectErrorStream(true).start();
    started.add(process);
    return process;
  }

  static String output(Process process) throws IOException {
    return new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
  }

  /** A line of /proc/PID/status, such as Cpus_allowed_list. */
  static String status(long pid, String field) throws IOException {
    for (String line : Files.readAllLines(Path.of("/proc/" + pid + "/status"))) {
      if (line.startsWith(field + ":")) {
        return line.substring(field.length() + 1).strip();
      }
    }
    throw new IOException("no " + field + " for " + pid);
  }

  @Override
  public void close() throws InterruptedException {
    for (Process process : started) {
      process.destroyForcibly();
      process.waitFor(10, TimeUnit.SECONDS);
    }
  }
}
