package io.gpuq.job;

import java.util.Collection;
import java.util.Map;

/** Listing jobs with filters and id cursors; ULID ids sort by creation time. */
interface JobListing {

  /**
   * One page, newest first: only its rows and their labels and attempts are read, whatever the
   * filter matches. A read that outlasts {@code gpuq.api.query-timeout} is cancelled by the
   * database and thrown as Spring's {@link org.springframework.dao.QueryTimeoutException}.
   */
  JobPage page(JobFilter filter);

  /**
   * For each of these jobs that is queued, how many queued jobs of its queue (CPU-only or GPU) come
   * before it in scheduling order; read in one statement, whatever the number of jobs.
   */
  Map<String, Long> queuedAhead(Collection<String> ids);
}
