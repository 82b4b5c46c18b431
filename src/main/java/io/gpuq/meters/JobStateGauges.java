package io.gpuq.meters;

import io.gpuq.job.JobState;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Clock;
import java.time.Duration;
import java.util.Map;
import java.util.function.Supplier;

/**
 * {@code gpuq_jobs{state}}: one gauge per state, all six answered by a single count query that is
 * reused for {@code maxAge}, so that a scrape costs one query however many gauges read it.
 */
public final class JobStateGauges {

  private final ReusedReading<Map<JobState, Long>> counts;

  public JobStateGauges(
      MeterRegistry registry,
      Supplier<Map<JobState, Long>> countByState,
      Clock clock,
      Duration maxAge) {
    this.counts = new ReusedReading<>("jobs per state", countByState, clock, maxAge);
    for (JobState state : JobState.ofJobs()) {
      Gauge.builder(MeterNames.JOBS, () -> count(state))
          .description("Jobs per state")
          .tag(MeterNames.STATE, state.name())
          .register(registry);
    }
  }

  /** The number of jobs in {@code state}, NaN while the database cannot be read. */
  public double count(JobState state) {
    Map<JobState, Long> read = counts.get();
    Long count = read == null ? null : read.get(state);
    return count == null ? Double.NaN : count;
  }
}
