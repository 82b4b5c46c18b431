package io.gpuq.retention;

import io.gpuq.duty.FixedDelayDuty;
import java.io.IOException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Deletes jobs that finished {@code gpuq.retention.finished} ago (0 keeps them forever), in batches
 * of {@link #BATCH}, each its own short transaction, so that a first run over a million old jobs
 * never holds one huge transaction nor starves the scheduler's writes.
 *
 * <p>Several nodes share the database, but each keeps the directories of the jobs it ran. So each
 * node, in each run: (1) deletes finished jobs' rows, whichever node ran them, after deleting those
 * jobs' directories that it has; (2) deletes its directories of jobs created before the cutoff
 * whose rows are gone, which another node deleted (or an earlier run here, whose directory deletion
 * failed). Queued and running jobs are never candidates: only finished states are read.
 *
 * <p>A sweep's trials wait for their sweep to end, then age as one with it; the sweep's row goes
 * with its last trial.
 *
 * <p>An idempotency key goes with its job (or sweep): after retention, the same key creates a new
 * one.
 */
public final class RetentionDuty extends FixedDelayDuty {

  static final int BATCH = 500;

  private static final Logger log = LoggerFactory.getLogger(RetentionDuty.class);

  private final FinishedJobs rows;
  private final JobDirectories directories;
  private final Duration retention;
  private final Clock clock;

  /**
   * @param retention how long after its end a job is kept; zero keeps jobs forever
   */
  public RetentionDuty(
      FinishedJobs rows,
      JobDirectories directories,
      Duration retention,
      Duration interval,
      Clock clock) {
    super("retention", interval);
    this.rows = rows;
    this.directories = directories;
    this.retention = retention;
    this.clock = clock;
  }

  @Override
  public void runOnce() {
    if (retention.isZero()) {
      return;
    }
    Instant cutoff = clock.instant().minus(retention);
    int deleted = deleteFinishedJobs(cutoff);
    int sweeps = rows.deleteEmptySweeps(cutoff);
    int orphans = deleteDirectoriesOfDeletedJobs(cutoff);
    if (deleted > 0 || sweeps > 0 || orphans > 0) {
      log.info(
          "retention: deleted {} jobs and {} sweeps that finished before {}, and the directories"
              + " here of {} more jobs that other nodes deleted",
          deleted,
          sweeps,
          cutoff,
          orphans);
    }
  }

  private int deleteFinishedJobs(Instant cutoff) {
    int total = 0;
    while (true) {
      List<String> batch = rows.finishedBefore(cutoff, BATCH);
      for (String id : batch) {
        deleteDirectories(id);
      }
      int deleted = rows.delete(batch, cutoff);
      total += deleted;
      // Nothing deleted of a full batch: another node is deleting the same jobs; it finishes them.
      if (batch.size() < BATCH || deleted == 0) {
        return total;
      }
    }
  }

  private int deleteDirectoriesOfDeletedJobs(Instant cutoff) {
    Set<String> candidates;
    try {
      candidates = directories.createdBefore(cutoff);
    } catch (IOException e) {
      log.warn("retention: cannot list this node's job directories: {}", e.toString());
      return 0;
    }
    int deleted = 0;
    List<String> chunk = new ArrayList<>(BATCH);
    for (String id : candidates) {
      chunk.add(id);
      if (chunk.size() == BATCH) {
        deleted += deleteIfGone(chunk);
        chunk.clear();
      }
    }
    return deleted + deleteIfGone(chunk);
  }

  private int deleteIfGone(List<String> ids) {
    Set<String> kept = rows.existing(ids);
    int deleted = 0;
    for (String id : ids) {
      if (!kept.contains(id) && deleteDirectories(id)) {
        deleted++;
      }
    }
    return deleted;
  }

  // A directory that cannot be deleted does not keep its job's rows: the orphan pass retries it
  // in every run, and says why each time.
  private boolean deleteDirectories(String id) {
    try {
      return directories.delete(id);
    } catch (IOException | RuntimeException e) {
      log.warn("retention: cannot delete the directories of job {}: {}", id, e.toString());
      return false;
    }
  }
}
