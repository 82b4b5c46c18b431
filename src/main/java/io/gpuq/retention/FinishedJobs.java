package io.gpuq.retention;

import java.time.Instant;
import java.util.Collection;
import java.util.List;
import java.util.Set;

/**
 * The rows retention reads and deletes: any node may delete any job's rows. Each call is one short
 * transaction over a bounded batch. {@code io.gpuq.storage.RetentionTable} writes it in SQL.
 */
public interface FinishedJobs {

  /**
   * Up to {@code max} ids of jobs that finished before {@code cutoff}, longest finished first: jobs
   * of their own by their own end, then trials by their sweep's.
   */
  List<String> finishedBefore(Instant cutoff, int max);

  /**
   * Deletes the sweeps that ended before {@code cutoff} and have no trial left.
   *
   * @return how many
   */
  int deleteEmptySweeps(Instant cutoff);

  /**
   * Deletes those of {@code ids} that are still finished before {@code cutoff}.
   *
   * @return how many jobs were deleted
   */
  int delete(Collection<String> ids, Instant cutoff);

  /** Which of {@code ids} are jobs in the database. */
  Set<String> existing(Collection<String> ids);
}
