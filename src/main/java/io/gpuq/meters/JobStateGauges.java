package io.gpuq.meters;

import io.gpuq.job.JobState;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code gpuq_jobs{state}}: one gauge per state, all six answered by a single count query that is
 * reused for {@code maxAge}, so that a scrape costs one query however many gauges read it.
 */
public final class JobStateGauges {

  private static final Logger log = LoggerFactory.getLogger(JobStateGauges.class);

  private final Supplier<Map<JobState, Long>> countByState;
  private final Clock clock;
  private final Duration maxAge;
  private Map<JobState, Long> counts;
  private Instant countedAt;

  public JobStateGauges(
      MeterRegistry registry,
      Supplier<Map<JobState, Long>> countByState,
      Clock clock,
      Duration maxAge) {
    this.countByState = countByState;
    this.clock = clock;
    this.maxAge = maxAge;
    for (JobState state : JobState.values()) {
      Gauge.builder(MeterNames.JOBS, () -> count(state))
          .description("Jobs per state")
          .tag(MeterNames.STATE, state.name())
          .register(registry);
    }
  }

  /** The number of jobs in {@code state}, NaN while the database cannot be read. */
  public synchronized double count(JobState state) {
    Instant now = clock.instant();
    if (counts == null || !now.isBefore(countedAt.plus(maxAge)) || now.isBefore(countedAt)) {
      try {
        counts = countByState.get();
      } catch (RuntimeException e) {
        log.warn("cannot count jobs per state for the metrics: {}", e.toString());
        counts = Map.of();
      }
      countedAt = now;
    }
    Long count = counts.get(state);
    return count == null ? Double.NaN : count;
  }
}
