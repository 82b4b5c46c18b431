package io.gpuq.schedule;

import io.gpuq.job.Job;
import io.gpuq.job.JobService;
import io.gpuq.job.JobState;
import io.gpuq.job.SweepTrial;

/**
 * A queued job's {@code queuedReason}, computed when it is read from what this node's last
 * scheduling pass saw ({@link QueueReasons}).
 */
public final class QueuedReasons {

  private final QueueReasons lastPass;
  private final JobService jobs;

  public QueuedReasons(QueueReasons lastPass, JobService jobs) {
    this.lastPass = lastPass;
    this.jobs = jobs;
  }

  /** Why this job waits; null unless it is queued. */
  public String of(Job job) {
    if (job.state() != JobState.QUEUED) {
      return null;
    }
    QueueReasons.Pass pass = lastPass.lastPass().orElse(null);
    if (pass == null || pass.at().isBefore(job.queuedAt())) {
      return WaitWords.NOT_YET_CONSIDERED;
    }
    String seen = pass.byJob().get(job.id());
    if (seen != null) {
      return seen;
    }
    Integer sweepLimit =
        job.sweepTrial().map(SweepTrial::sweepId).map(pass.fullSweeps()::get).orElse(null);
    if (sweepLimit != null) {
      return WaitWords.sweepFull(sweepLimit);
    }
    if (job.gpus() == 0 && pass.freeCpuSlots() == 0) {
      return WaitWords.noCpuSlot(pass.node());
    }
    // Beyond what the pass looked at (its lookahead).
    return WaitWords.behind(jobs.queuedAhead(job.id()));
  }
}
