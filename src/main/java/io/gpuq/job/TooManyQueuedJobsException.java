package io.gpuq.job;

/**
 * A submission (a job, or a sweep's trials) would take its owner past {@code max-queued-jobs}: the
 * bound that keeps one client from filling the database. Nothing of it was stored.
 */
public class TooManyQueuedJobsException extends LimitExceededException {

  /**
   * @param max the owner's {@code max-queued-jobs}
   * @param queued the owner's queued jobs now
   * @param requested the jobs this submission would add
   */
  public TooManyQueuedJobsException(long max, long queued, long requested) {
    super(
        "you have "
            + queued
            + " queued "
            + (queued == 1 ? "job" : "jobs")
            + (requested == 1 ? " and this adds 1" : " and this adds " + requested)
            + ", past your limit of "
            + max
            + " queued jobs (max-queued-jobs): wait for some to start, or cancel some",
        new Figure("limit", "max-queued-jobs"),
        new Figure("max", max),
        new Figure("queued", queued),
        new Figure("requested", requested));
  }

  public long max() {
    return figure("max", Long.class);
  }

  public long queued() {
    return figure("queued", Long.class);
  }

  public long requested() {
    return figure("requested", Long.class);
  }
}
