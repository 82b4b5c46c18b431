package io.gpuq.storage;

import io.gpuq.job.JobFilter;
import io.gpuq.job.JobPage;

/** Listing jobs with filters and id cursors; ULID ids sort by creation time. */
interface JobListing {

  /**
   * One page, newest first: only its rows and their labels and attempts are read, whatever the
   * filter matches. A read that outlasts {@code gpuq.api.query-timeout} is cancelled by the
   * database and thrown as Spring's {@link org.springframework.dao.QueryTimeoutException}, which
   * {@link JpaJobStore#page} translates into gpuq's {@link io.gpuq.job.StoreTimeoutException}.
   */
  JobPage page(JobFilter filter);
}
