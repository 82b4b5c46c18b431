package io.gpuq.launch.env;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/** Runs a real python3 with exactly the given environment. */
final class PythonProcess {

  /** Debian's interpreter where it exists (as on CI), so no version manager shim is in between. */
  static final String PYTHON =
      System.getenv()
          .getOrDefault(
              "GPUQ_TEST_PYTHON",
              Files.isExecutable(Path.of("/usr/bin/python3")) ? "/usr/bin/python3" : "python3");

  record Result(int exitCode, String stdout, String stderr) {
    List<String> stdoutLines() {
      return stdout.lines().toList();
    }

    List<String> stderrLines() {
      return stderr.lines().toList();
    }
  }

  private PythonProcess() {}

  static Result run(Path workDir, Map<String, String> env, String... args)
      throws IOException, InterruptedException {
    var command = new java.util.ArrayList<String>();
    command.add(PYTHON);
    command.addAll(List.of(args));
    Path out = Files.createTempFile(workDir, "stdout", ".txt");
    Path err = Files.createTempFile(workDir, "stderr", ".txt");
    var builder =
        new ProcessBuilder(command)
            .directory(workDir.toFile())
            .redirectOutput(out.toFile())
            .redirectError(err.toFile());
    builder.environment().clear();
    builder.environment().putAll(env);
    Process process = builder.start();
    if (!process.waitFor(60, TimeUnit.SECONDS)) {
      process.destroyForcibly();
      throw new AssertionError("python did not finish: " + command);
    }
    return new Result(
        process.exitValue(),
        Files.readString(out, StandardCharsets.UTF_8),
        Files.readString(err, StandardCharsets.UTF_8));
  }
}
