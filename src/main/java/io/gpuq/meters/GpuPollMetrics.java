package io.gpuq.meters;

import io.gpuq.duty.FixedDelayDuty;
import io.gpuq.duty.PeriodicDuty;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;

/** How long GPU polls take and how often they fail. */
public final class GpuPollMetrics {

  private static final Duration[] POLL_BUCKETS = {
    Duration.ofMillis(1),
    Duration.ofMillis(2),
    Duration.ofMillis(5),
    Duration.ofMillis(10),
    Duration.ofMillis(25),
    Duration.ofMillis(50),
    Duration.ofMillis(100),
    Duration.ofMillis(250),
    Duration.ofMillis(500),
    Duration.ofSeconds(1),
    Duration.ofMillis(2500),
    Duration.ofSeconds(5)
  };

  private final Timer duration;
  private final Counter errors;

  public GpuPollMetrics(MeterRegistry registry, String node) {
    this.duration =
        Timer.builder(MeterNames.GPU_POLL_DURATION)
            .description(
                "Time of one GPU poll: reading the backend, attributing processes to jobs and"
                    + " informing the poll's listeners (budget guard, peak recorder, metrics)")
            .serviceLevelObjectives(POLL_BUCKETS)
            .tag(MeterNames.NODE, node)
            .register(registry);
    this.errors =
        Counter.builder(MeterNames.GPU_POLL_ERRORS)
            .description("GPU polls that failed because the backend could not be read")
            .tag(MeterNames.NODE, node)
            .register(registry);
  }

  /** The poll duty, each run timed (a failed poll too: it is the time the failure took). */
  public PeriodicDuty timed(PeriodicDuty poll) {
    return new FixedDelayDuty(poll.name(), poll.interval()) {
      @Override
      public void runOnce() {
        duration.record(poll::runOnce);
      }
    };
  }

  /** Counts one failed poll (the poll duty's failure hook). */
  public void pollFailed() {
    errors.increment();
  }
}
