package io.gpuq.api;

import io.gpuq.job.Caller;
import io.gpuq.job.JobAccessDeniedException;
import io.gpuq.job.JobNotFoundException;
import io.gpuq.job.JobQueries;
import java.util.HashMap;
import java.util.Map;
import java.util.function.Predicate;

/**
 * Whether a job that an answer names is the caller's, so that a submitter is not shown another
 * owner's: asked once per job, as an answer names the same job often (a GPU's processes, queued
 * jobs waiting on one reservation). One deleted since it was named counts as another owner's, which
 * tells nothing. Made for one answer; an admin's answers need not ask.
 */
final class OwnJobs implements Predicate<String> {

  private final JobQueries jobs;
  private final Caller caller;
  private final Map<String, Boolean> known = new HashMap<>();

  OwnJobs(JobQueries jobs, Caller caller) {
    this.jobs = jobs;
    this.caller = caller;
  }

  @Override
  public boolean test(String jobId) {
    return known.computeIfAbsent(jobId, this::ask);
  }

  private boolean ask(String jobId) {
    try {
      jobs.get(caller, jobId);
      return true;
    } catch (JobAccessDeniedException | JobNotFoundException e) {
      return false;
    }
  }
}
