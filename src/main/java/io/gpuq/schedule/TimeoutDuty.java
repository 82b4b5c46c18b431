package io.gpuq.schedule;

import io.gpuq.duty.FixedDelayDuty;
import io.gpuq.launch.RunningWorker;
import io.gpuq.launch.StopReason;
import io.gpuq.launch.Workers;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;

/** Stops workers that ran past their job's timeout; their jobs then fail with TIMEOUT. */
public class TimeoutDuty extends FixedDelayDuty {

  private final Workers workers;
  private final Clock clock;
  private final TimeoutWarnings warnings;

  public TimeoutDuty(Workers workers, Clock clock) {
    this(workers, clock, new TimeoutWarnings());
  }

  /**
   * @param warnings the signals sent before a timeout ({@code timeoutSignal}, issue 35)
   */
  TimeoutDuty(Workers workers, Clock clock, TimeoutWarnings warnings) {
    super("timeouts", Duration.ofMillis(200));
    this.workers = workers;
    this.clock = clock;
    this.warnings = warnings;
  }

  @Override
  public void runOnce() {
    Instant now = clock.instant();
    for (RunningWorker worker : workers.live()) {
      warnings
          .takeDue(worker.jobId(), worker.attempt(), now)
          .ifPresent(warning -> workers.signal(worker, warning.signal()));
      if (worker.deadline() != null && !now.isBefore(worker.deadline())) {
        workers.stop(
            worker.jobId(),
            StopReason.TIMEOUT,
            "it ran past its timeout of "
                + Duration.between(worker.startedAt(), worker.deadline()));
      }
    }
  }
}
