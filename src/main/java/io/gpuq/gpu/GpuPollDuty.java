package io.gpuq.gpu;

import io.gpuq.duty.FixedDelayDuty;
import java.time.Duration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Polls the GPUs on a fixed delay; a failing poll is logged and counted, never fatal. */
public final class GpuPollDuty extends FixedDelayDuty {

  private static final Logger log = LoggerFactory.getLogger(GpuPollDuty.class);

  private final GpuPoller poller;
  private final Runnable onFailure;
  private int consecutiveFailures;

  public GpuPollDuty(GpuPoller poller, Duration interval, Runnable onFailure) {
    super("gpu-poll", interval);
    this.poller = poller;
    this.onFailure = onFailure;
  }

  @Override
  public void runOnce() {
    try {
      poller.poll();
      if (consecutiveFailures > 0) {
        log.info("GPU poll works again after {} failures", consecutiveFailures);
      }
      consecutiveFailures = 0;
    } catch (GpuBackendException e) {
      onFailure.run();
      // Every failure is counted; the log says it once, then every minute or so.
      if (consecutiveFailures++ % 60 == 0) {
        log.warn("GPU poll failed ({} in a row): {}", consecutiveFailures, e.getMessage());
      }
    }
  }
}
