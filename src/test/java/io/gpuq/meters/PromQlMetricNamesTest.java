package io.gpuq.meters;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

@DisplayName("Metric names are found in PromQL, and nothing else is taken for one")
class PromQlMetricNamesTest {

  @Test
  void a_bare_name_and_a_selector_with_labels() {
    assertThat(PromQlMetricNames.of("up")).containsExactly("up");
    assertThat(PromQlMetricNames.of("gpuq_jobs{state=\"QUEUED\", node=~\"$node\"}"))
        .containsExactly("gpuq_jobs");
  }

  @Test
  void functions_aggregations_and_their_label_lists_are_not_metrics() {
    String expression =
        "histogram_quantile(0.95, sum by (le, node) (rate(gpuq_job_queue_wait_seconds_bucket"
            + "{node=~\"$node\"}[$__rate_interval])))";

    assertThat(PromQlMetricNames.of(expression))
        .containsExactly("gpuq_job_queue_wait_seconds_bucket");
  }

  @Test
  void both_sides_of_a_binary_operation_with_matching_modifiers() {
    String expression =
        "gpuq_gpu_memory_used_bytes / on (node, gpu) group_left(uuid)"
            + " gpuq_gpu_memory_total_bytes > bool 0.95 and ignoring(job_id) up == 1";

    assertThat(PromQlMetricNames.of(expression))
        .containsExactly("gpuq_gpu_memory_total_bytes", "gpuq_gpu_memory_used_bytes", "up");
  }

  @Test
  void a_postfix_by_clause_durations_offsets_and_strings_are_skipped() {
    String expression =
        "sum(increase(gpuq_job_attempts_finished_total{reason=\"OUT_OF_MEMORY\"}[10m] offset 5m))"
            + " by (outcome) * 60 + count_values(\"value\", foo:recorded:rate5m) - 1e3";

    assertThat(PromQlMetricNames.of(expression))
        .containsExactly("foo:recorded:rate5m", "gpuq_job_attempts_finished_total");
  }

  @Test
  void a_name_given_as_a_label_matcher_counts() {
    assertThat(PromQlMetricNames.of("{__name__=\"gpuq_jobs\", state=\"RUNNING\"}"))
        .containsExactly("gpuq_jobs");
  }

  @Test
  void grafana_variables_are_not_metrics() {
    assertThat(PromQlMetricNames.of("rate(x_total[$__rate_interval]) * ${factor} + $offset"))
        .containsExactly("x_total");
  }
}
