package io.gpuq.wiring;

import io.gpuq.config.GpuqProperties;
import io.gpuq.job.JobService;
import io.gpuq.launch.Workers;
import io.gpuq.meters.OwnerGauges;
import io.gpuq.schedule.HeldBesideWorkers;
import io.gpuq.schedule.OwnerStandings;
import io.gpuq.schedule.Scheduler;
import io.gpuq.security.TokenRegistry;
import io.gpuq.storage.OwnerQueuedTable;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Clock;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * Who holds the GPUs: the owners' figures for {@code GET /api/v1/owners} and their gauges
 * (CompositionConfiguration runs the gauges' refresh).
 */
@Configuration(proxyBeanMethods = false)
public class OwnersConfiguration {

  /** What owners hold counts a warm-start zygote on this node too (issue 36). */
  @Bean
  OwnerStandings ownerStandings(
      TokenRegistry tokens,
      JdbcTemplate jdbc,
      JobService jobs,
      Workers workers,
      Scheduler scheduler,
      Clock clock) {
    return new OwnerStandings(
        tokens.ownerTerms(),
        new OwnerQueuedTable(jdbc.getDataSource()),
        () -> HeldBesideWorkers.plus(jobs.heldByOwner(), HeldBesideWorkers.of(workers)),
        scheduler.usageAccounting(),
        clock);
  }

  /**
   * Read at the GPU poll's pace, as the sweep meters are: a few grouped queries, none per scrape.
   */
  @Bean
  OwnerGauges ownerGauges(
      MeterRegistry registry, OwnerStandings owners, GpuqProperties properties) {
    return new OwnerGauges(registry, owners::now, properties.gpu().pollInterval());
  }
}
