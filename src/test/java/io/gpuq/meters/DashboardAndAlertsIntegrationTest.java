package io.gpuq.meters;

import static org.assertj.core.api.Assertions.assertThat;

import io.gpuq.support.HttpApi;
import java.io.IOException;
import java.io.Reader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.yaml.snakeyaml.Yaml;
import tools.jackson.databind.JsonNode;

@DisplayName("The Grafana dashboard and the alert rules read only metrics gpuq exports")
class DashboardAndAlertsIntegrationTest extends MetricsIntegrationSupport {

  static final Path DASHBOARD = Path.of("deploy", "grafana", "dashboards", "gpuq.json");
  static final Path ALERTS = Path.of("deploy", "prometheus", "alerts.yml");

  /** Prometheus's own series, which no exporter exposes. */
  private static final Set<String> PROMETHEUS_OWN = Set.of("up");

  private static final Pattern LABEL_VALUES =
      Pattern.compile("label_values\\(\\s*([a-zA-Z_:][a-zA-Z0-9_:]*)\\s*[,{]");

  static JsonNode dashboard() throws IOException {
    return HttpApi.JSON.readTree(Files.readString(DASHBOARD));
  }

  /** Every PromQL expression of every panel, nested rows included. */
  static List<String> dashboardExpressions() throws IOException {
    List<String> expressions = new ArrayList<>();
    collectTargets(dashboard().get("panels"), expressions);
    return expressions;
  }

  private static void collectTargets(JsonNode panels, List<String> expressions) {
    for (JsonNode panel : panels) {
      if (panel.has("targets")) {
        panel.get("targets").forEach(t -> expressions.add(t.get("expr").asString()));
      }
      if (panel.has("panels")) {
        collectTargets(panel.get("panels"), expressions);
      }
    }
  }

  @SuppressWarnings("unchecked")
  static List<Map<String, Object>> alertRules() throws IOException {
    try (Reader reader = Files.newBufferedReader(ALERTS)) {
      Map<String, Object> file = new Yaml().load(reader);
      List<Map<String, Object>> rules = new ArrayList<>();
      for (Map<String, Object> group : (List<Map<String, Object>>) file.get("groups")) {
        rules.addAll((List<Map<String, Object>>) group.get("rules"));
      }
      return rules;
    }
  }

  private static Set<String> namesIn(List<String> expressions) {
    Set<String> names = new TreeSet<>();
    expressions.forEach(e -> names.addAll(PromQlMetricNames.of(e)));
    return names;
  }

  private Set<String> exported() {
    Set<String> names = new TreeSet<>(scrapeWhileAGpuJobRuns().sampleNames());
    names.addAll(PROMETHEUS_OWN);
    return names;
  }

  @Test
  void every_dashboard_query_and_variable_names_only_exported_metrics() throws IOException {
    List<String> expressions = dashboardExpressions();
    Set<String> used = namesIn(expressions);
    for (JsonNode variable : dashboard().get("templating").get("list")) {
      if (variable.get("type").asString().equals("query")) {
        Matcher metric = LABEL_VALUES.matcher(variable.get("definition").asString());
        assertThat(metric.find()).as(variable.toString()).isTrue();
        used.add(metric.group(1));
      }
    }

    assertThat(expressions).hasSizeGreaterThan(20);
    assertThat(exported()).containsAll(used);
  }

  @Test
  void the_dashboard_shows_memory_against_budgets_the_queue_outcomes_guard_polls_and_hosts()
      throws IOException {
    assertThat(namesIn(dashboardExpressions()))
        .contains(
            "gpuq_gpu_memory_used_bytes",
            "gpuq_gpu_memory_reserved_bytes",
            "gpuq_gpu_memory_total_bytes",
            "gpuq_job_gpu_memory_used_bytes",
            "gpuq_job_gpu_memory_budget_bytes",
            "gpuq_jobs",
            "gpuq_job_queue_wait_seconds_bucket",
            "gpuq_job_attempts_finished_total",
            "gpuq_guard_actions_total",
            "gpuq_gpu_poll_errors_total",
            "gpuq_job_cpu_usage_ratio",
            "gpuq_job_resident_memory_bytes",
            "gpuq_node_cpus",
            "gpuq_node_memory_bytes",
            "gpuq_preemptions_total");
    // gpuq_jobs counts the shared database on every node: one node's value, not their sum
    // (DashboardOnSeveralNodesTest evaluates these over two nodes).
    assertThat(dashboardExpressions())
        .contains("max by (state) (gpuq_jobs)", "max(gpuq_jobs{state=\"QUEUED\"})");
  }

  @Test
  void the_dashboard_has_a_row_who_holds_the_gpus_over_the_owner_gauges() throws IOException {
    List<String> rows = new ArrayList<>();
    dashboard().get("panels").forEach(p -> rows.add(p.get("title").asString()));
    assertThat(rows).contains("Who holds the GPUs");

    List<String> ownerQueries =
        dashboardExpressions().stream().filter(e -> e.contains("gpuq_owner_")).toList();
    assertThat(namesIn(ownerQueries))
        .contains(
            "gpuq_owner_gpus_held",
            "gpuq_owner_gpu_memory_held_bytes",
            "gpuq_owner_running_jobs",
            "gpuq_owner_queued_jobs",
            "gpuq_owner_dominant_share",
            "gpuq_owner_recent_usage",
            "gpuq_owner_fair_share_position");
    // Every node exports the whole cluster's owner figures: one node's value, not their sum.
    assertThat(ownerQueries).allMatch(e -> e.startsWith("max by (owner) ("));
  }

  @Test
  void the_dashboard_has_a_node_variable_and_takes_its_data_source_from_a_variable()
      throws IOException {
    JsonNode dashboard = dashboard();
    List<String> variables = new ArrayList<>();
    dashboard.get("templating").get("list").forEach(v -> variables.add(v.get("name").asString()));
    assertThat(variables).contains("node", "DS_PROMETHEUS");

    List<String> dataSources = new ArrayList<>();
    collectDataSources(dashboard.get("panels"), dataSources);
    assertThat(dataSources).isNotEmpty().allMatch("${DS_PROMETHEUS}"::equals);
    assertThat(dashboardExpressions())
        .filteredOn(
            e -> e.contains("gpuq_gpu_") || e.contains("gpuq_job_") || e.contains("gpuq_node_"))
        .allMatch(e -> e.contains("node=~\"$node\""));
  }

  private static void collectDataSources(JsonNode panels, List<String> uids) {
    for (JsonNode panel : panels) {
      if (panel.has("datasource")) {
        uids.add(panel.get("datasource").get("uid").asString());
      }
      if (panel.has("targets")) {
        panel.get("targets").forEach(t -> uids.add(t.get("datasource").get("uid").asString()));
      }
      if (panel.has("panels")) {
        collectDataSources(panel.get("panels"), uids);
      }
    }
  }

  @Test
  @SuppressWarnings("unchecked")
  void every_alert_rule_names_only_exported_metrics_and_explains_itself() throws IOException {
    List<Map<String, Object>> rules = alertRules();
    List<String> expressions = rules.stream().map(r -> (String) r.get("expr")).toList();

    assertThat(rules)
        .extracting(r -> r.get("alert"))
        .contains(
            "GpuqGpuMemoryNearlyFull",
            "GpuqJobOverBudget",
            "GpuqJobOutOfMemory",
            "GpuqDown",
            "GpuqPreemptionStorm");
    assertThat(rules)
        .allSatisfy(
            r ->
                assertThat((Map<String, Object>) r.get("annotations"))
                    .containsKeys("summary", "description"));
    assertThat(namesIn(expressions))
        .contains(
            "gpuq_gpu_memory_used_bytes",
            "gpuq_gpu_memory_reserved_bytes",
            "gpuq_job_gpu_memory_budget_bytes",
            "gpuq_job_attempts_finished_total",
            "gpuq_preemptions_total",
            "up");
    assertThat(exported()).containsAll(namesIn(expressions));
  }
}
