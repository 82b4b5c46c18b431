package io.gpuq.storage;

import io.gpuq.job.ClaimedJob;
import io.gpuq.job.JobPlacement;
import java.time.Instant;
import java.util.Collection;
import java.util.List;
import java.util.Map;

/**
 * The scheduler's hot transitions, claiming and succeeding, written without loading the job; a
 * fragment of {@link JobRepository}. What they write is {@link JobTransition}'s description, the
 * one the entity applies too.
 */
interface TransitionWrites {

  /**
   * Locks those of these jobs that may start ({@link JobTransition#START}) and that no other
   * transaction holds, {@code FOR UPDATE SKIP LOCKED}, and reads what launching them needs, in one
   * statement. This is how a node claims: of several nodes claiming one job at once, one wins and
   * the others move on at once instead of queueing on its lock.
   */
  List<ClaimedJob> lockToStart(Collection<String> ids);

  /**
   * Writes, for each of these jobs, {@link JobTransition#START} with its placement: the job's row,
   * guarded by the states the transition may leave, and its attempt's row.
   *
   * @return the jobs that started; a job in another state is left out, and left as it was
   */
  List<ClaimedJob> startWithoutLoading(
      List<ClaimedJob> jobs, Map<String, JobPlacement> placements, Instant now);

  /**
   * Writes {@link JobTransition#SUCCEED} on the job and its attempt, if the job is still in that
   * attempt and in a state the transition may leave.
   *
   * @return whether it moved; if not, nothing was written
   */
  boolean succeedWithoutLoading(String jobId, int attempt, Integer exitCode, Instant now);
}
