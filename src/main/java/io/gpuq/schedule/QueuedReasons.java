package io.gpuq.schedule;

import io.gpuq.job.Job;
import io.gpuq.job.JobService;
import io.gpuq.job.JobState;
import io.gpuq.job.SweepTrial;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

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
    return of(List.of(job)).get(job.id());
  }

  /**
   * Why each of these jobs waits, by id (null for one not queued). The jobs beyond what the pass
   * looked at are counted behind the queue in one read for them all, not one each.
   */
  public Map<String, String> of(List<Job> listed) {
    Map<String, String> reasons = new HashMap<>();
    QueueReasons.Pass pass = lastPass.lastPass().orElse(null);
    List<String> beyondThePass = new ArrayList<>();
    for (Job job : listed) {
      if (job.state() != JobState.QUEUED) {
        reasons.put(job.id(), null);
      } else if (pass == null || pass.at().isBefore(job.queuedAt())) {
        reasons.put(job.id(), WaitWords.NOT_YET_CONSIDERED);
      } else {
        String seen = seenBy(pass, job);
        reasons.put(job.id(), seen);
        if (seen == null) {
          beyondThePass.add(job.id());
        }
      }
    }
    if (!beyondThePass.isEmpty()) {
      Map<String, Long> ahead = jobs.queuedAhead(beyondThePass);
      // A job started or cancelled since it was read is no longer queued: nothing is ahead.
      beyondThePass.forEach(id -> reasons.put(id, WaitWords.behind(ahead.getOrDefault(id, 0L))));
    }
    return reasons;
  }

  /** What the last pass saw of this queued job; null when it is beyond what the pass read. */
  private static String seenBy(QueueReasons.Pass pass, Job job) {
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
    return null;
  }
}
