package io.gpuq.ship;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.yaml.snakeyaml.DumperOptions;
import org.yaml.snakeyaml.Yaml;

/**
 * Prometheus' own checker on the Prometheus files: the compose config, the alert rules, and the
 * rules the chart's PrometheusRule carries. Skipped where promtool is not installed (Debian package
 * {@code prometheus}); CI installs it.
 */
@DisplayName("promtool check")
class PromtoolTest {

  private static Path promtool;

  @BeforeAll
  static void findPromtool() {
    Optional<Path> found = onPath("promtool");
    assumeTrue(
        found.isPresent(),
        "promtool is not installed (apt-get install prometheus): Prometheus files not checked");
    promtool = found.get();
  }

  @Test
  @DisplayName("config deploy/prometheus/prometheus.yml, with the rule files it names")
  void composePrometheusConfigIsValid() throws Exception {
    String output = run("check", "config", "deploy/prometheus/prometheus.yml");

    assertThat(output).contains("SUCCESS: 1 rule files found");
  }

  @Test
  @DisplayName("rules deploy/prometheus/alerts.yml")
  void alertRulesAreValid() throws Exception {
    run("check", "rules", "deploy/prometheus/alerts.yml");
  }

  @Test
  @DisplayName("rules of the chart's PrometheusRule")
  void chartPrometheusRuleIsValid(@TempDir Path dir) throws Exception {
    RenderedChart chart = RenderedChart.render(t -> t.set("prometheusRule.enabled", true));
    Object groups = Tree.at(chart.one("PrometheusRule"), "spec", "groups");
    DumperOptions block = new DumperOptions();
    block.setDefaultFlowStyle(DumperOptions.FlowStyle.BLOCK);
    Path rules = dir.resolve("rules.yml");
    Files.writeString(rules, new Yaml(block).dump(Map.of("groups", groups)));

    run("check", "rules", rules.toString());
  }

  private static String run(String... arguments) throws IOException, InterruptedException {
    List<String> command = new ArrayList<>();
    command.add(promtool.toString());
    command.addAll(List.of(arguments));
    Process process =
        new ProcessBuilder(command)
            .directory(Repo.root().toFile())
            .redirectErrorStream(true)
            .start();
    boolean exited = process.waitFor(60, TimeUnit.SECONDS);
    String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    if (!exited) {
      process.destroyForcibly();
    }
    assertThat(exited).as("promtool finished within 60 s").isTrue();
    assertThat(process.exitValue()).as(String.join(" ", command) + "\n" + output).isZero();
    return output;
  }

  private static Optional<Path> onPath(String program) {
    String path = System.getenv("PATH");
    if (path == null) {
      return Optional.empty();
    }
    for (String dir : path.split(File.pathSeparator)) {
      Path candidate = Path.of(dir, program);
      if (Files.isExecutable(candidate)) {
        return Optional.of(candidate);
      }
    }
    return Optional.empty();
  }
}
