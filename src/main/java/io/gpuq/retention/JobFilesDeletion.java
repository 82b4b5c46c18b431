package io.gpuq.retention;

import io.gpuq.job.AdminOnlyException;
import io.gpuq.job.Caller;
import io.gpuq.job.Job;
import io.gpuq.job.JobConflictException;
import io.gpuq.job.JobNotFoundException;
import io.gpuq.job.JobService;
import java.io.IOException;
import java.io.UncheckedIOException;

/**
 * An admin deletes a finished job's files on this node (its log, exit and process files, and its
 * work directory) before retention would, to free a data directory a job has filled. The job's
 * record stays; its log then reads as empty. The directories are deleted as retention deletes them,
 * never following a link the job left in them.
 */
public final class JobFilesDeletion {

  /**
   * Tries of the job's read. This request is made when the data directory is full, where every
   * write gpuq makes (a heartbeat, a job's end) fails and closes H2's database; the pool then drops
   * its connections and new ones open it again, and reads work on a full disk. A read that took a
   * connection just before such a close fails (issue 34: a 500 now and then): the next try, on a
   * new connection, reads.
   */
  private static final int READ_TRIES = 5;

  private static final long READ_PAUSE_MILLIS = 200;

  private final JobService jobs;
  private final JobDirectories directories;

  public JobFilesDeletion(JobService jobs, JobDirectories directories) {
    this.jobs = jobs;
    this.directories = directories;
  }

  /**
   * @throws AdminOnlyException when the caller is no admin (before anything says whether the job
   *     exists)
   * @throws io.gpuq.job.JobNotFoundException when there is no such job
   * @throws JobConflictException when the job has not finished: its worker may still write there
   */
  public void delete(Caller caller, String jobId) {
    if (!caller.isAdmin()) {
      throw new AdminOnlyException("only an admin may delete a job's files");
    }
    Job job = read(caller, jobId);
    // A cancelled job is terminal at once but finishes only when its last process is gone.
    if (!job.state().isTerminal() || job.finishedAt() == null) {
      throw new JobConflictException(
          "job "
              + jobId
              + " is "
              + job.state()
              + ": its files can be deleted once it has finished (cancel it first)");
    }
    try {
      directories.delete(jobId);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot delete the files of job " + jobId, e);
    }
  }

  private Job read(Caller caller, String jobId) {
    for (int tried = 1; ; tried++) {
      try {
        return jobs.get(caller, jobId);
      } catch (JobNotFoundException e) {
        throw e;
      } catch (RuntimeException e) {
        if (tried >= READ_TRIES) {
          throw e;
        }
        try {
          Thread.sleep(READ_PAUSE_MILLIS);
        } catch (InterruptedException interrupted) {
          Thread.currentThread().interrupt();
          throw e;
        }
      }
    }
  }
}
