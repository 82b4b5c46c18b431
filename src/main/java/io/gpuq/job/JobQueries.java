package io.gpuq.job;

import io.gpuq.reported.MetricsPage;
import java.util.Collection;
import java.util.Map;
import java.util.Set;

/**
 * What the web layer reads of the jobs, with the caller's rights checked. It is all the web layer
 * holds of {@link JobService}: submitting and cancelling have one door, {@code
 * schedule.JobCommands}, which checks, stores and wakes the scheduler in one call.
 */
public interface JobQueries {

  Job get(Caller caller, String id);

  JobPage list(
      Caller caller, JobState state, Map<String, String> labels, String beforeId, int limit);

  /** A page of the points a job's run reported, for a caller who may see the job. */
  MetricsPage metrics(Caller caller, String id, long after, int limit, long maxBytes);

  /** Which of these jobs have ended, read at once however many there are. */
  Set<String> endedAmong(Collection<String> ids);
}
