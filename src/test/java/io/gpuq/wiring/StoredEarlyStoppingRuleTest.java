package io.gpuq.wiring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.gpuq.sweep.Asha;
import io.gpuq.sweep.InvalidSweepException;
import io.gpuq.sweep.MedianStopping;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

@DisplayName("A sweep's early-stopping rule read back from its stored JSON")
class StoredEarlyStoppingRuleTest {

  @Test
  void a_median_rule_reads_back_with_its_settings_and_the_validators_defaults() {
    assertThat(
            ReportedMetricsConfiguration.storedRule(
                "{\"type\":\"median\",\"startupTrials\":5,\"warmupSteps\":10}"))
        .contains(new MedianStopping(5, 10));
    assertThat(ReportedMetricsConfiguration.storedRule("{\"type\":\"median\"}"))
        .contains(new MedianStopping(MedianStopping.DEFAULT_STARTUP_TRIALS, 0));
  }

  @Test
  void an_asha_rule_reads_back_with_its_settings() {
    assertThat(
            ReportedMetricsConfiguration.storedRule(
                "{\"type\":\"asha\",\"minSteps\":3,\"reductionFactor\":2}"))
        .contains(new Asha(3, 2));
  }

  @Test
  void no_rule_is_none_and_a_broken_one_is_refused() {
    assertThat(ReportedMetricsConfiguration.storedRule(null)).isEmpty();
    assertThatThrownBy(() -> ReportedMetricsConfiguration.storedRule("{\"type\":\"hyperband\"}"))
        .isInstanceOf(InvalidSweepException.class);
  }
}
