package io.gpuq.job;

import java.time.Instant;
import java.util.Collection;
import java.util.List;
import java.util.Map;

/** Claiming and starting jobs without loading them; a fragment of {@link JobRepository}. */
interface JobStartWrites {

  /**
   * Locks those of these jobs that may start ({@link JobTransition#START}) and that no other
   * transaction holds, {@code FOR UPDATE SKIP LOCKED}, and reads what launching them needs, in one
   * statement. This is how a node claims: of several nodes claiming one job at once, one wins and
   * the others move on at once instead of queueing on its lock.
   */
  List<ClaimedJob> lockToStart(Collection<String> ids);

  /**
   * Writes, for each of these jobs, what {@link Job#start} would with its placement: the job's row,
   * guarded by the states {@link JobTransition#START} may leave, and its attempt's row.
   *
   * @return the jobs that started; a job in another state is left out, and left as it was
   */
  List<ClaimedJob> startWithoutLoading(
      List<ClaimedJob> jobs, Map<String, JobPlacement> placements, Instant now);
}
