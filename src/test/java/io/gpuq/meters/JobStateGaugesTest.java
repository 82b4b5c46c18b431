package io.gpuq.meters;

import static org.assertj.core.api.Assertions.assertThat;

import io.gpuq.job.JobState;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.EnumMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

@DisplayName("gpuq_jobs answers all six states from one count query per second")
class JobStateGaugesTest {

  private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
  private final AtomicInteger queries = new AtomicInteger();
  private Instant now = Instant.parse("2025-01-01T00:00:00Z");
  private long queued = 3;

  private final Clock clock =
      new Clock() {
        @Override
        public ZoneOffset getZone() {
          return ZoneOffset.UTC;
        }

        @Override
        public Clock withZone(java.time.ZoneId zone) {
          return this;
        }

        @Override
        public Instant instant() {
          return now;
        }
      };

  private Map<JobState, Long> countByState() {
    queries.incrementAndGet();
    Map<JobState, Long> counts = new EnumMap<>(JobState.class);
    for (JobState state : JobState.ofJobs()) {
      counts.put(state, state == JobState.QUEUED ? queued : 1L);
    }
    return counts;
  }

  private double gauge(JobState state) {
    return registry.get("gpuq.jobs").tag("state", state.name()).gauge().value();
  }

  @Test
  void one_query_serves_every_state_within_its_max_age_and_a_later_read_counts_again() {
    new JobStateGauges(registry, this::countByState, clock, Duration.ofSeconds(1));

    for (JobState state : JobState.ofJobs()) {
      assertThat(gauge(state)).isEqualTo(state == JobState.QUEUED ? 3.0 : 1.0);
    }
    queued = 5;
    now = now.plusMillis(999);
    assertThat(gauge(JobState.QUEUED)).isEqualTo(3.0);
    now = now.plusMillis(1);
    assertThat(gauge(JobState.QUEUED)).isEqualTo(5.0);
    assertThat(queries).hasValue(2);
  }

  @Test
  void a_failing_query_reads_as_nan_not_as_zero_jobs() {
    new JobStateGauges(
        registry,
        () -> {
          throw new IllegalStateException("database down");
        },
        clock,
        Duration.ofSeconds(1));

    assertThat(gauge(JobState.RUNNING)).isNaN();
  }
}
