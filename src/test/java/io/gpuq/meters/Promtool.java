package io.gpuq.meters;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

/**
 * Prometheus' own PromQL engine, through {@code promtool test rules}: a unit-test file gives input
 * series (what Prometheus would have scraped) and the samples each expression must evaluate to. The
 * Debian package {@code prometheus} has promtool; CI installs it.
 */
final class Promtool {

  private Promtool() {}

  /** What promtool said, and how it exited. */
  record Result(int exitCode, String output) {}

  static boolean installed() {
    try {
      return run("--version").exitCode() == 0;
    } catch (IOException e) {
      return false;
    }
  }

  static Result run(String... args) throws IOException {
    List<String> command = new ArrayList<>(List.of("promtool"));
    command.addAll(List.of(args));
    Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
    process.getOutputStream().close();
    String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    try {
      if (!process.waitFor(60, TimeUnit.SECONDS)) {
        process.destroyForcibly();
        throw new IllegalStateException("promtool did not finish within 60 s: " + output);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
    return new Result(process.exitValue(), output);
  }

  /**
   * One {@code promtool test rules} file: series sampled every minute, expressions evaluated at a
   * given time, each with the samples it must give (labels in PromQL form, e.g. {@code
   * {state="QUEUED"}}, or {@code {}}).
   */
  static final class UnitTest {

    private final StringBuilder series = new StringBuilder();
    private final StringBuilder expressions = new StringBuilder();

    /** A series with one value per minute from time 0 ({@code "3x10"}, {@code "0 1 1 2"}). */
    UnitTest series(String name, Map<String, String> labels, String values) {
      series
          .append("      - series: ")
          .append(quote(name + selector(labels)))
          .append("\n        values: ")
          .append(quote(values))
          .append('\n');
      return this;
    }

    /** {@code expression} at {@code evalTime} (e.g. {@code 5m}) gives exactly these samples. */
    UnitTest expect(String expression, String evalTime, Map<String, Double> samples) {
      expressions
          .append("      - expr: ")
          .append(quote(expression))
          .append("\n        eval_time: ")
          .append(evalTime)
          .append("\n        exp_samples:");
      if (samples.isEmpty()) {
        expressions.append(" []");
      }
      expressions.append('\n');
      samples.forEach(
          (labels, value) ->
              expressions
                  .append("          - labels: ")
                  .append(quote(labels))
                  .append("\n            value: ")
                  .append(number(value))
                  .append('\n'));
      return this;
    }

    String yaml() {
      return "evaluation_interval: 1m\n"
          + "tests:\n"
          + "  - interval: 1m\n"
          + "    input_series:\n"
          + series
          + "    promql_expr_test:\n"
          + expressions;
    }

    /** Runs the file through promtool; the result's output says which expression got what. */
    Result run(Path dir) throws IOException {
      Path file = dir.resolve("dashboard-test.yml");
      Files.writeString(file, yaml());
      Result result = Promtool.run("test", "rules", file.toString());
      return new Result(result.exitCode(), result.output() + "\n--- " + file + ":\n" + yaml());
    }

    /** {@code {a="x", b="y"}} with PromQL's string escapes. */
    static String selector(Map<String, String> labels) {
      return new TreeMap<>(labels)
          .entrySet().stream()
              .map(e -> e.getKey() + "=\"" + escape(e.getValue()) + "\"")
              .collect(Collectors.joining(", ", "{", "}"));
    }

    private static String escape(String value) {
      return value.replace("\\", "\\\\").replace("\"", "\\\"").replace("\n", "\\n");
    }

    /** A YAML single-quoted scalar. */
    private static String quote(String text) {
      return "'" + text.replace("'", "''") + "'";
    }

    static String number(double value) {
      if (Double.isNaN(value)) {
        return "NaN";
      }
      if (Double.isInfinite(value)) {
        return value > 0 ? "+Inf" : "-Inf";
      }
      if (value == Math.rint(value) && Math.abs(value) < 1e15) {
        return Long.toString((long) value);
      }
      return String.format(Locale.ROOT, "%s", value);
    }
  }
}
