package io.gpuq.wiring;

import io.gpuq.config.GpuqProperties;
import io.gpuq.job.JobStore;
import io.gpuq.launch.JobFiles;
import io.gpuq.launch.Workers;
import io.gpuq.node.NodeIdentity;
import io.gpuq.reported.MetricsFileReader;
import io.gpuq.schedule.MetricsReading;
import io.gpuq.schedule.TrialPruning;
import io.gpuq.sweep.EarlyStopping;
import io.gpuq.sweep.SweepRequest.EarlyStoppingRequest;
import io.gpuq.sweep.SweepValidator;
import java.time.Clock;
import java.util.Optional;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import tools.jackson.databind.json.JsonMapper;

/**
 * The metrics runs report through {@code GPUQ_METRICS_FILE}: read on the GPU poll's cadence, and a
 * sweep's early-stopping rule enforced on what they say.
 */
@Configuration(proxyBeanMethods = false)
public class ReportedMetricsConfiguration {

  private static final JsonMapper RULES = JsonMapper.builder().build();

  @Bean
  TrialPruning trialPruning(JobStore store, Workers workers, Clock clock, NodeIdentity node) {
    return new TrialPruning(
        store, workers, ReportedMetricsConfiguration::storedRule, clock, node.name());
  }

  @Bean
  MetricsReading metricsReading(
      JobStore store,
      JobFiles files,
      TrialPruning pruning,
      Clock clock,
      NodeIdentity node,
      GpuqProperties properties) {
    return new MetricsReading(
        store,
        files,
        new MetricsFileReader(),
        pruning,
        clock,
        node.name(),
        properties.gpu().pollInterval());
  }

  /** The rule a sweep's stored {@code early_stopping} JSON describes. */
  static Optional<EarlyStopping> storedRule(String json) {
    if (json == null || json.isBlank()) {
      return Optional.empty();
    }
    return SweepValidator.storedRule(RULES.readValue(json, EarlyStoppingRequest.class));
  }
}
