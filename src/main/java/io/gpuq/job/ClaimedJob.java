package io.gpuq.job;

import io.gpuq.concurrency.TrialLimits;
import io.gpuq.concurrency.TrialSlots;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;

/**
 * A job this node has just claimed, with what launching its worker and reporting the start need:
 * read without the job's labels and attempts, which a claim has no use for.
 *
 * @param owner whose job it is: that decides the account its worker runs as
 * @param attempt the attempt that the claim started
 * @param timeout null for none
 * @param queuedAt when this attempt joined the queue
 * @param trial the sweep trial it is; null for a job of its own
 * @param host its cores and host memory
 * @param preload the modules its warm start imports once (issue 36); empty for a cold start
 * @param timeoutSignal the warning before its timeout; null for none (issue 35)
 */
public record ClaimedJob(
    String id,
    String owner,
    int attempt,
    List<String> command,
    String workingDir,
    Map<String, String> env,
    Framework framework,
    Duration timeout,
    Instant createdAt,
    Instant queuedAt,
    SweepTrial trial,
    HostResources host,
    List<String> preload,
    TimeoutSignal timeoutSignal) {

  public ClaimedJob {
    preload = preload == null ? List.of() : List.copyOf(preload);
  }

  /** What a claim of this job, now started, reads for its launch. */
  static ClaimedJob of(Job job) {
    return new ClaimedJob(
        job.id(),
        job.owner(),
        job.attempt(),
        job.command(),
        job.workingDir(),
        job.env(),
        job.framework(),
        job.timeout(),
        job.createdAt(),
        job.queuedAt(),
        job.sweepTrial().orElse(null),
        job.host(),
        job.preload(),
        job.timeoutSignal().orElse(null));
  }

  /**
   * The claimed jobs that may start, in the order the scheduler placed them, without a sweep
   * running more trials than its {@code maxConcurrent} ({@link TrialLimits}).
   */
  public static List<ClaimedJob> withinTrialLimits(
      List<ClaimedJob> inClaimOrder, Map<String, TrialSlots> slots) {
    return TrialLimits.within(
        inClaimOrder,
        job -> job.trial() == null ? null : job.trial().sweepId(),
        slots,
        (job, sweep) -> {});
  }
}
