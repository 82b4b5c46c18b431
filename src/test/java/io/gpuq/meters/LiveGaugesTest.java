package io.gpuq.meters;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.util.Map;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

@DisplayName("A set of live series follows each update: values change in place, gone ones go")
class LiveGaugesTest {

  private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
  private final LiveGauges gauges = new LiveGauges(registry, "test.used", "bytes", "for tests");

  private Gauge gauge(String job) {
    return registry.find("test.used").tag("job_id", job).gauge();
  }

  @Test
  void a_series_keeps_its_meter_while_its_value_changes() {
    gauges.update(Map.of(Tags.of("job_id", "a"), 1L, Tags.of("job_id", "b"), 2L));
    Gauge a = gauge("a");

    gauges.update(Map.of(Tags.of("job_id", "a"), 5L, Tags.of("job_id", "b"), 2L));

    assertThat(gauge("a")).isSameAs(a);
    assertThat(a.value()).isEqualTo(5.0);
  }

  @Test
  void series_missing_from_an_update_are_removed_from_the_registry() {
    gauges.update(Map.of(Tags.of("job_id", "a"), 1L, Tags.of("job_id", "b"), 2L));

    gauges.update(Map.of(Tags.of("job_id", "b"), 3L));

    assertThat(gauge("a")).isNull();
    assertThat(gauge("b").value()).isEqualTo(3.0);
    assertThat(registry.find("test.used").gauges()).hasSize(1);
  }

  @Test
  void a_series_that_comes_back_reads_its_new_value() {
    gauges.update(Map.of(Tags.of("job_id", "a"), 1L));
    gauges.update(Map.of());
    gauges.update(Map.of(Tags.of("job_id", "a"), 7L));

    assertThat(gauge("a").value()).isEqualTo(7.0);
  }

  @Test
  void series_are_removed_by_one_label_value() {
    gauges.update(
        Map.of(
            Tags.of("gpu", "0", "job_id", "a"), 1L,
            Tags.of("gpu", "1", "job_id", "a"), 2L,
            Tags.of("gpu", "0", "job_id", "b"), 3L));

    gauges.removeSeriesWith("job_id", "a");

    assertThat(registry.find("test.used").gauges()).hasSize(1);
    assertThat(gauge("b").value()).isEqualTo(3.0);
  }
}
