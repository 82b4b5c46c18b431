package io.gpuq.schedule;

import io.gpuq.job.Job;
import io.gpuq.job.JobState;
import io.gpuq.job.SweepTrial;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * A queued job's {@code queuedReason}, computed when it is read from what this node's last
 * scheduling pass saw ({@link QueueReasons}), and from nothing else: no read of the database, so
 * that a job's page and a listing cost the same however long the queue is.
 */
public final class QueuedReasons {

  private final QueueReasons lastPass;

  public QueuedReasons(QueueReasons lastPass) {
    this.lastPass = lastPass;
  }

  /** Why this job waits; null unless it is queued. */
  public String of(Job job) {
    return reason(lastPass.lastPass().orElse(null), job);
  }

  /** Why each of these jobs waits, by id (null for one not queued). */
  public Map<String, String> of(List<Job> listed) {
    QueueReasons.Pass pass = lastPass.lastPass().orElse(null);
    Map<String, String> reasons = new HashMap<>();
    for (Job job : listed) {
      reasons.put(job.id(), reason(pass, job));
    }
    return reasons;
  }

  private static String reason(QueueReasons.Pass pass, Job job) {
    if (job.state() != JobState.QUEUED) {
      return null;
    }
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
    QueueReasons.Head head = pass.headFor(job.gpus());
    if (head != null && head.behind(job.priority(), job.id())) {
      return WaitWords.behindHead(head.read());
    }
    // Not in what the pass read, nor behind it: queued again (a retry) or moved up since.
    return WaitWords.NOT_YET_CONSIDERED;
  }
}
