package io.gpuq.meters;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

@DisplayName("Every gpuq metric is exposed under the name, type and labels docs/metrics.md gives")
class ExposedNamesIntegrationTest extends MetricsIntegrationSupport {

  private static final Pattern TABLE_ROW =
      Pattern.compile("^\\| `(gpuq_[a-z_]+)` \\| (\\w+) \\| ([^|]+) \\|", Pattern.MULTILINE);

  /** The API.md contract, word for word. */
  private static final Map<String, Set<String>> CONTRACT =
      Map.ofEntries(
          Map.entry("gpuq_gpu_memory_total_bytes", Set.of("node", "gpu", "uuid")),
          Map.entry("gpuq_gpu_memory_used_bytes", Set.of("node", "gpu", "uuid")),
          Map.entry("gpuq_gpu_memory_reserved_bytes", Set.of("node", "gpu", "uuid")),
          Map.entry("gpuq_gpu_utilization_ratio", Set.of("node", "gpu", "uuid")),
          Map.entry("gpuq_process_gpu_memory_used_bytes", Set.of("node", "gpu", "pid", "job_id")),
          Map.entry("gpuq_job_gpu_memory_used_bytes", Set.of("node", "gpu", "job_id")),
          Map.entry("gpuq_job_gpu_memory_budget_bytes", Set.of("node", "gpu", "job_id")),
          Map.entry("gpuq_jobs", Set.of("state")),
          Map.entry("gpuq_job_info", Set.of("job_id", "name", "owner", "sweep")),
          Map.entry("gpuq_sweep_trials", Set.of("sweep", "state")),
          Map.entry("gpuq_sweep_best_value", Set.of("sweep")),
          Map.entry("gpuq_node_cpus", Set.of("node", "kind")),
          Map.entry("gpuq_node_memory_bytes", Set.of("node", "kind")),
          Map.entry("gpuq_owner_share", Set.of("owner")),
          Map.entry("gpuq_owner_running_jobs", Set.of("owner")),
          Map.entry("gpuq_owner_queued_jobs", Set.of("owner")),
          Map.entry("gpuq_owner_gpus_held", Set.of("owner")),
          Map.entry("gpuq_owner_gpu_memory_held_bytes", Set.of("owner")),
          Map.entry("gpuq_owner_recent_usage", Set.of("owner")),
          Map.entry("gpuq_owner_dominant_share", Set.of("owner")),
          Map.entry("gpuq_owner_fair_share_position", Set.of("owner")));

  record Documented(String type, Set<String> labels) {}

  private static Map<String, Documented> documented() throws IOException {
    String doc = Files.readString(Path.of("docs", "metrics.md"));
    Map<String, Documented> metrics = new LinkedHashMap<>();
    Matcher row = TABLE_ROW.matcher(doc);
    while (row.find()) {
      Set<String> labels =
          Arrays.stream(row.group(3).split(","))
              .map(l -> l.trim().replace("`", ""))
              .collect(Collectors.toSet());
      metrics.put(row.group(1), new Documented(row.group(2), labels));
    }
    return metrics;
  }

  @Test
  void the_documented_table_and_the_live_exposition_name_the_same_metrics_and_types()
      throws IOException {
    Exposition exposition = scrapeWhileAGpuJobRuns();
    Map<String, Documented> documented = documented();

    Map<String, String> exposedTypes = new TreeMap<>();
    exposition
        .types()
        .forEach(
            (name, type) -> {
              if (name.startsWith("gpuq_")) {
                exposedTypes.put(name, type);
              }
            });
    Map<String, String> documentedTypes = new TreeMap<>();
    documented.forEach((name, doc) -> documentedTypes.put(name, doc.type()));

    assertThat(documented).hasSize(37);
    assertThat(exposedTypes).isEqualTo(documentedTypes);
  }

  @Test
  void each_metric_carries_exactly_its_documented_labels() throws IOException {
    Exposition exposition = scrapeWhileAGpuJobRuns();

    documented()
        .forEach(
            (name, doc) -> {
              String series = doc.type().equals("histogram") ? name + "_count" : name;
              assertThat(exposition.samples(series)).as(series).isNotEmpty();
              assertThat(exposition.samples(series))
                  .as(series)
                  .allSatisfy(s -> assertThat(s.labels().keySet()).isEqualTo(doc.labels()));
            });
  }

  @Test
  void the_api_contract_metrics_are_documented_and_exposed_with_their_labels() throws IOException {
    Exposition exposition = scrapeWhileAGpuJobRuns();
    Map<String, Documented> documented = documented();

    CONTRACT.forEach(
        (name, labels) -> {
          assertThat(documented).containsKey(name);
          assertThat(documented.get(name).labels()).as(name).isEqualTo(labels);
          assertThat(exposition.types()).containsEntry(name, "gauge");
          assertThat(new HashSet<>(exposition.samples(name).get(0).labels().keySet()))
              .isEqualTo(labels);
        });
  }
}
