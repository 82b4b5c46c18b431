package io.gpuq.job;

import java.time.Instant;
import java.util.List;
import java.util.Map;

/** Starting claimed jobs without loading them; a fragment of {@link JobRepository}. */
interface JobStartWrites {

  /**
   * Writes, for each of these jobs, what {@link Job#start} would with its placement: the job's row,
   * guarded by the states {@link JobTransition#START} may leave, and its attempt's row.
   *
   * @return the jobs that started; a job in another state is left out, and left as it was
   */
  List<ClaimedJob> startWithoutLoading(
      List<ClaimedJob> jobs, Map<String, JobPlacement> placements, Instant now);
}
