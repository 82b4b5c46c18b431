package io.gpuq.bench;

import io.gpuq.launch.env.PythonHook;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What gpuq's sitecustomize costs a Python process at start-up: wall time of {@code python3 -c
 * pass} without the hook, with it but nothing to watch (jax job), and with it watching torch
 * (pytorch job); plus the hook's own import time as {@code -X importtime} reports it.
 *
 * <p>Usage: {@code bench/run PythonHookStartupBench [runs] [python]}
 */
public final class PythonHookStartupBench {

  private static final Pattern IMPORT_TIME =
      Pattern.compile(
          "import time:\\s+(\\d+) \\|\\s+(\\d+) \\|\\s+sitecustomize$", Pattern.MULTILINE);

  public static void main(String[] args) throws Exception {
    int runs = args.length > 0 ? Integer.parseInt(args[0]) : 40;
    String python =
        args.length > 1
            ? args[1]
            : Files.isExecutable(Path.of("/usr/bin/python3")) ? "/usr/bin/python3" : "python3";
    Path hook = PythonHook.extractTo(Files.createTempDirectory("gpuq-hook"));
    String path = System.getenv("PATH");

    Map<String, String> without = Map.of("PATH", path);
    Map<String, String> idle = Map.of("PATH", path, "PYTHONPATH", hook.toString());
    Map<String, String> watching =
        Map.of(
            "PATH",
            path,
            "PYTHONPATH",
            hook.toString(),
            "CUDA_VISIBLE_DEVICES",
            "GPU-a",
            "GPUQ_TORCH_MEMORY_FRACTION",
            "0.375");

    run(python, watching, "-c", "pass"); // warm the page cache and __pycache__
    List<Long> a = new ArrayList<>(), b = new ArrayList<>(), c = new ArrayList<>();
    for (int i = 0; i < runs; i++) { // interleaved, so drift hits all three alike
      a.add(run(python, without, "-c", "pass"));
      b.add(run(python, idle, "-c", "pass"));
      c.add(run(python, watching, "-c", "pass"));
    }
    double base = median(a);
    System.out.printf("python: %s, %d runs each, median wall time of `-c pass`%n", python, runs);
    System.out.printf("  without hook            %7.2f ms  ratio 1.000%n", base / 1e6);
    System.out.printf(
        "  hook, nothing to watch  %7.2f ms  ratio %.3f%n", median(b) / 1e6, median(b) / base);
    System.out.printf(
        "  hook, watching torch    %7.2f ms  ratio %.3f%n", median(c) / 1e6, median(c) / base);

    List<Long> self = new ArrayList<>(), cumulative = new ArrayList<>();
    for (int i = 0; i < runs; i++) {
      Matcher m = IMPORT_TIME.matcher(output(python, watching, "-X", "importtime", "-c", "pass"));
      // One line: the chained sitecustomize runs inside ours, not as an import of its own.
      if (m.find()) {
        self.add(Long.parseLong(m.group(1)));
        cumulative.add(Long.parseLong(m.group(2)));
      }
    }
    System.out.printf(
        "  -X importtime sitecustomize (hook watching torch, incl. the chained one): median %d us"
            + " self, %d us cumulative%n",
        (long) median(self), (long) median(cumulative));
  }

  private static long run(String python, Map<String, String> env, String... args)
      throws IOException, InterruptedException {
    long start = System.nanoTime();
    output(python, env, args);
    return System.nanoTime() - start;
  }

  private static String output(String python, Map<String, String> env, String... args)
      throws IOException, InterruptedException {
    List<String> command = new ArrayList<>(List.of(python));
    command.addAll(List.of(args));
    ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true);
    builder.environment().clear();
    builder.environment().putAll(env);
    Process process = builder.start();
    String out = new String(process.getInputStream().readAllBytes());
    if (process.waitFor() != 0) {
      throw new IllegalStateException(out);
    }
    return out;
  }

  private static double median(List<Long> values) {
    List<Long> sorted = new ArrayList<>(values);
    Collections.sort(sorted);
    return sorted.get(sorted.size() / 2);
  }
}
