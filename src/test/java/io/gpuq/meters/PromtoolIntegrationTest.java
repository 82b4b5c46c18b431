package io.gpuq.meters;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

@DisplayName("promtool accepts gpuq's exposition and alert rules")
class PromtoolIntegrationTest extends MetricsIntegrationSupport {

  /** What promtool said, and how it exited. */
  record Result(int exitCode, String output) {
    List<String> lines() {
      return output.lines().filter(l -> !l.isBlank()).toList();
    }
  }

  private static boolean promtoolInstalled() {
    try {
      return promtool(null, "--version").exitCode() == 0;
    } catch (IOException e) {
      return false;
    }
  }

  private static Result promtool(String stdin, String... args) throws IOException {
    List<String> command = new java.util.ArrayList<>(List.of("promtool"));
    command.addAll(List.of(args));
    Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
    try (var in = process.getOutputStream()) {
      if (stdin != null) {
        in.write(stdin.getBytes(StandardCharsets.UTF_8));
      }
    }
    String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    try {
      assertThat(process.waitFor(60, TimeUnit.SECONDS)).isTrue();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
    return new Result(process.exitValue(), output);
  }

  @BeforeEach
  void needsPromtool() {
    assumeTrue(
        promtoolInstalled(),
        "promtool is not installed (Debian/Ubuntu: apt-get install prometheus); the promtool"
            + " checks are skipped here and run in CI");
  }

  @Test
  void gpuq_metrics_pass_promtool_check_metrics_without_a_remark() throws IOException {
    String exposition = scrapeWhileAGpuJobRuns().text();
    String gpuqOnly =
        exposition
            .lines()
            .filter(
                l ->
                    l.startsWith("gpuq_")
                        || l.startsWith("# HELP gpuq_")
                        || l.startsWith("# TYPE gpuq_"))
            .collect(Collectors.joining("\n", "", "\n"));

    Result result = promtool(gpuqOnly, "check", "metrics");

    assertThat(gpuqOnly).contains("gpuq_process_gpu_memory_used_bytes{");
    assertThat(result.lines()).isEmpty();
    assertThat(result.exitCode()).isZero();
  }

  @Test
  void the_whole_live_exposition_parses_and_no_remark_concerns_a_gpuq_metric() throws IOException {
    Result result = promtool(scrapeWhileAGpuJobRuns().text(), "check", "metrics");

    // 0: clean; 3: lint remarks, which Spring Boot's standard meters draw (docs/metrics.md).
    // 1 would be a parse error.
    assertThat(result.exitCode()).as(result.output()).isIn(0, 3);
    assertThat(result.output()).doesNotContain("error");
    assertThat(result.lines()).noneMatch(l -> l.startsWith("gpuq_"));
  }

  @Test
  void the_alert_rules_pass_promtool_check_rules() throws IOException {
    Result result =
        promtool(null, "check", "rules", Path.of("deploy/prometheus/alerts.yml").toString());

    long rules =
        Files.readAllLines(Path.of("deploy/prometheus/alerts.yml")).stream()
            .filter(line -> line.strip().startsWith("- alert:"))
            .count();
    assertThat(rules).isGreaterThanOrEqualTo(7);
    assertThat(result.exitCode()).as(result.output()).isZero();
    assertThat(result.output()).contains("SUCCESS: " + rules + " rules found");
  }
}
