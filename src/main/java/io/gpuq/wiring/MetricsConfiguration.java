package io.gpuq.wiring;

import io.gpuq.config.GpuqProperties;
import io.gpuq.fs.StorageGuard;
import io.gpuq.gpu.GpuInventory;
import io.gpuq.job.JobService;
import io.gpuq.launch.Workers;
import io.gpuq.meters.GpuMetrics;
import io.gpuq.meters.GpuPollMetrics;
import io.gpuq.meters.GuardActionCounter;
import io.gpuq.meters.JobHostMetrics;
import io.gpuq.meters.JobStateGauges;
import io.gpuq.meters.NodeResourceGauges;
import io.gpuq.meters.SchedulerMetrics;
import io.gpuq.meters.StorageGauges;
import io.gpuq.meters.SweepMeters;
import io.gpuq.node.NodeIdentity;
import io.gpuq.node.NodeRegistry;
import io.gpuq.proc.ProcFs;
import io.gpuq.storage.SweepTable;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Clock;
import java.time.Duration;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/** gpuq's own meters (docs/metrics.md), exposed with the rest at {@code /actuator/prometheus}. */
@Configuration(proxyBeanMethods = false)
public class MetricsConfiguration {

  /** One count query serves every scrape within this time. */
  static final Duration JOB_COUNT_MAX_AGE = Duration.ofSeconds(1);

  @Bean
  GpuPollMetrics gpuPollMetrics(MeterRegistry registry, NodeIdentity node) {
    return new GpuPollMetrics(registry, node.name());
  }

  /** Hears every GPU poll (GpuConfiguration) and every attempt's end (CoreConfiguration). */
  @Bean
  GpuMetrics gpuMetrics(
      MeterRegistry registry, NodeIdentity node, GpuInventory inventory, Workers workers) {
    return new GpuMetrics(registry, node.name(), inventory, workers);
  }

  @Bean
  JobHostMetrics jobHostMetrics(
      MeterRegistry registry,
      NodeIdentity node,
      Workers workers,
      ProcFs procFs,
      Clock clock,
      GpuqProperties properties) {
    return new JobHostMetrics(
        registry, node.name(), workers, procFs, clock, properties.gpu().pollInterval());
  }

  /** This node's cores and memory: allocatable, allocated (one grouped query), used. */
  @Bean
  NodeResourceGauges nodeResourceGauges(
      MeterRegistry registry, NodeIdentity node, NodeRegistry nodes, Clock clock) {
    return new NodeResourceGauges(
        registry, node.name(), nodes::selfFigures, clock, JOB_COUNT_MAX_AGE);
  }

  @Bean
  SchedulerMetrics schedulerMetrics(MeterRegistry registry, NodeIdentity node) {
    return new SchedulerMetrics(registry, node.name());
  }

  @Bean
  GuardActionCounter guardActionCounter(MeterRegistry registry, NodeIdentity node) {
    return new GuardActionCounter(registry, node.name());
  }

  @Bean
  StorageGauges storageGauges(MeterRegistry registry, NodeIdentity node, StorageGuard guard) {
    return new StorageGauges(registry, node.name(), guard);
  }

  @Bean
  JobStateGauges jobStateGauges(MeterRegistry registry, JobService jobs, Clock clock) {
    return new JobStateGauges(registry, jobs::countByState, clock, JOB_COUNT_MAX_AGE);
  }

  /** Sweeps' trials and best values, and this node's running jobs, read at the GPU poll's pace. */
  @Bean
  SweepMeters sweepMetrics(
      MeterRegistry registry, SweepTable sweeps, NodeIdentity node, GpuqProperties properties) {
    return new SweepMeters(
        registry,
        () -> sweeps.figures(node.name()),
        properties.gpu().pollInterval(),
        properties.metrics().jobNames());
  }
}
