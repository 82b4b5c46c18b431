package io.gpuq.backup;

import io.gpuq.duty.FixedDelayDuty;
import io.gpuq.fs.StorageGuard;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Backs up the embedded H2 database every {@code gpuq.backup.interval}, so that a database file
 * damaged beyond opening costs at most that much work (docs/backup.md). Skipped, with a warning,
 * while the data directory is short of space: a backup must never be what fills the disk under the
 * database.
 */
public final class BackupDuty extends FixedDelayDuty {

  private static final Logger log = LoggerFactory.getLogger(BackupDuty.class);

  private final DatabaseBackups backups;
  private final StorageGuard storage;
  private final Clock clock;

  public BackupDuty(DatabaseBackups backups, StorageGuard storage, Duration interval, Clock clock) {
    super("database backup", interval);
    this.backups = backups;
    this.storage = storage;
    this.clock = clock;
  }

  @Override
  public void runOnce() {
    StorageGuard.Reading free = storage.check();
    if (free.isLow()) {
      log.warn(
          "database backup skipped: {} has {} bytes free, less than gpuq.storage.min-free; the"
              + " newest backup in {} stays the one to restore",
          free.dataDir(),
          free.freeBytes(),
          backups.directory());
      return;
    }
    Instant start = clock.instant();
    Path backup = backups.backUp();
    log.info(
        "database backed up to {} ({} bytes) in {} ms",
        backup,
        size(backup),
        Duration.between(start, clock.instant()).toMillis());
  }

  private static long size(Path file) {
    try {
      return Files.size(file);
    } catch (java.io.IOException e) {
      return -1;
    }
  }
}
