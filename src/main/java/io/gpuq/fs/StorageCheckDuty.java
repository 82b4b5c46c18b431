package io.gpuq.fs;

import io.gpuq.duty.FixedDelayDuty;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Measures the data directory's free space on a fixed delay, for readiness and the gauge, and says
 * when it falls below the minimum and when it is back. While it is short, it names what holds the
 * most space ({@link SpaceHolders}): when it falls short, then again every {@link #REMEASURE}, as
 * that walks the directory.
 */
public final class StorageCheckDuty extends FixedDelayDuty {

  private static final Logger log = LoggerFactory.getLogger(StorageCheckDuty.class);

  static final Duration REMEASURE = Duration.ofMinutes(1);
  private static final int HOLDERS_NAMED = 5;

  private final StorageGuard guard;
  private final Clock clock;
  private boolean wasLow;
  private boolean failing;
  private Instant measured;

  public StorageCheckDuty(StorageGuard guard, Duration interval) {
    this(guard, interval, Clock.systemUTC());
  }

  public StorageCheckDuty(StorageGuard guard, Duration interval, Clock clock) {
    super("storage-check", interval);
    this.guard = guard;
    this.clock = clock;
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
    }
    if (reading.isLow()) {
      Instant now = clock.instant();
      if (!wasLow || measured == null || !now.isBefore(measured.plus(REMEASURE))) {
        measured = now;
        List<SpaceHolders.Holder> holders =
            SpaceHolders.largest(new DataDirectory(reading.dataDir()), HOLDERS_NAMED);
        guard.holders(holders);
        log.warn(
            "the data directory's space is held most by: {}; an admin may delete a finished"
                + " job's files with DELETE /api/v1/jobs/{id}/files",
            holders.stream()
                .map(InsufficientStorageException::describe)
                .collect(Collectors.joining(", ")));
      }
    } else if (wasLow) {
      guard.holders(List.of());
      log.info(
          "the data directory {} has {} bytes free again: ready, submissions accepted",
          reading.dataDir(),
          reading.freeBytes());
    }
    wasLow = reading.isLow();
  }
}
