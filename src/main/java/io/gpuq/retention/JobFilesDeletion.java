package io.gpuq.retention;

import io.gpuq.job.AdminOnlyException;
import io.gpuq.job.Caller;
import io.gpuq.job.Job;
import io.gpuq.job.JobConflictException;
import io.gpuq.job.JobNotFoundException;
import io.gpuq.job.JobService;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.function.Predicate;

/**
 * An admin deletes a finished job's files on this node (its log, exit and process files, and its
 * work directory) before retention would, to free a data directory a job has filled. The job's
 * record stays; its log then reads as empty. The directories are deleted as retention deletes them,
 * never following a link the job left in them.
 *
 * <p>On a full disk a job's end may not be stored yet when it is asked for: its worker ended here,
 * but the database could not write the end, which is tried again (and H2 may show the job RUNNING
 * meanwhile). Refusing then would wait for a write that needs the very space asked for; so such a
 * job's work directory, where a job's bulk is, goes at once, while its log and exit files (capped,
 * and what the end is judged from after a restart) stay until its end is stored.
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
  private final Predicate<String> endNotStoredYet;

  /**
   * @param endNotStoredYet whether a job's worker ended on this node and its end is still to be
   *     stored
   */
  public JobFilesDeletion(
      JobService jobs, JobDirectories directories, Predicate<String> endNotStoredYet) {
    this.jobs = jobs;
    this.directories = directories;
    this.endNotStoredYet = endNotStoredYet;
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
    boolean finished = job.state().isTerminal() && job.finishedAt() != null;
    if (!finished && endNotStoredYet.test(jobId)) {
      try {
        directories.deleteWorkDirectory(jobId);
      } catch (IOException e) {
        throw new UncheckedIOException("cannot delete the work directory of job " + jobId, e);
      }
      return;
    }
    // A cancelled job is terminal at once but finishes only when its last process is gone.
    if (!finished) {
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
