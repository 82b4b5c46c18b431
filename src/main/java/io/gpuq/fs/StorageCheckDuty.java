package io.gpuq.fs;

import io.gpuq.duty.FixedDelayDuty;
import java.time.Duration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Measures the data directory's free space on a fixed delay, for readiness and the gauge, and says
 * when it falls below the minimum and when it is back.
 */
public final class StorageCheckDuty extends FixedDelayDuty {

  private static final Logger log = LoggerFactory.getLogger(StorageCheckDuty.class);

  private final StorageGuard guard;
  private boolean wasLow;
  private boolean failing;

  public StorageCheckDuty(StorageGuard guard, Duration interval) {
    super("storage-check", interval);
    this.guard = guard;
  }

  @Override
  public void runOnce() {
    StorageGuard.Reading reading;
    try {
      reading = guard.check();
      failing = false;
    } catch (RuntimeException e) {
      if (!failing) {
        log.warn("cannot measure the free space of the data directory: {}", e.toString());
      }
      failing = true;
      return;
    }
    if (reading.isLow() && !wasLow) {
      log.warn(
          "the data directory {} has {} bytes free, below gpuq.storage.min-free ({}): not ready,"
              + " submissions are refused with 507 until space is freed",
          reading.dataDir(),
          reading.freeBytes(),
          reading.minFreeBytes());
    } else if (!reading.isLow() && wasLow) {
      log.info(
          "the data directory {} has {} bytes free again: ready, submissions accepted",
          reading.dataDir(),
          reading.freeBytes());
    }
    wasLow = reading.isLow();
  }
}
