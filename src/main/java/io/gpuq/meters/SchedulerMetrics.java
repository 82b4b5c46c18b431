package io.gpuq.meters;

import static io.gpuq.meters.MeterNames.NODE;
import static io.gpuq.meters.MeterNames.OUTCOME;
import static io.gpuq.meters.MeterNames.REASON;

import io.gpuq.job.AttemptEnd;
import io.gpuq.job.AttemptOutcome;
import io.gpuq.job.FailureReason;
import io.gpuq.job.JobLifecycleListener;
import io.gpuq.job.JobState;
import io.gpuq.job.PreemptReason;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;
import java.time.Instant;

/**
 * How long jobs wait and how their attempts end: the queue-wait and submit-to-start histograms and
 * the counter of finished attempts by outcome and failure reason.
 */
public final class SchedulerMetrics implements JobLifecycleListener {

  /** The {@code outcome} of an attempt after which the job went back to the queue. */
  public static final String RETRIED = "RETRIED";

  /** The {@code reason} of an attempt that did not fail. */
  public static final String NO_REASON = "";

  // From sub-second (an idle node) to a day (a busy one): explicit buckets, since a timer's
  // default histogram stops at 30 s.
  private static final Duration[] WAIT_BUCKETS = {
    Duration.ofMillis(100),
    Duration.ofMillis(500),
    Duration.ofSeconds(1),
    Duration.ofSeconds(2),
    Duration.ofSeconds(5),
    Duration.ofSeconds(10),
    Duration.ofSeconds(30),
    Duration.ofMinutes(1),
    Duration.ofMinutes(2),
    Duration.ofMinutes(5),
    Duration.ofMinutes(10),
    Duration.ofMinutes(30),
    Duration.ofHours(1),
    Duration.ofHours(2),
    Duration.ofHours(4),
    Duration.ofHours(12),
    Duration.ofDays(1)
  };

  private final MeterRegistry registry;
  private final String node;
  private final Timer queueWait;
  private final Timer submitToStart;

  public SchedulerMetrics(MeterRegistry registry, String node) {
    this.registry = registry;
    this.node = node;
    // At 0 from the start, so that an alert's rate() sees the first preemption.
    for (PreemptReason reason : PreemptReason.values()) {
      preemptions(reason);
    }
    this.queueWait =
        waitTimer(
            MeterNames.JOB_QUEUE_WAIT, "Time an attempt waited in the queue before it started");
    this.submitToStart =
        waitTimer(
            MeterNames.JOB_SUBMIT_TO_START,
            "Time from a job's submission to the start of its first attempt");
    // Registered at 0 so that the first failure of a kind is an increase Prometheus can see.
    finished(JobState.SUCCEEDED.name(), NO_REASON);
    finished(JobState.CANCELLED.name(), NO_REASON);
    finished(JobState.PRUNED.name(), NO_REASON);
    for (FailureReason reason : FailureReason.values()) {
      finished(JobState.FAILED.name(), reason.name());
      finished(RETRIED, reason.name());
    }
  }

  /** A wait before a start, this node's, in {@link #WAIT_BUCKETS}. */
  private Timer waitTimer(String name, String description) {
    return Timer.builder(name)
        .description(description)
        .serviceLevelObjectives(WAIT_BUCKETS)
        .tag(NODE, node)
        .register(registry);
  }

  private Counter finished(String outcome, String reason) {
    return Counter.builder(MeterNames.JOB_ATTEMPTS_FINISHED)
        .description(
            "Attempts that ended, by what became of the job (SUCCEEDED, FAILED, CANCELLED,"
                + " PRUNED, or RETRIED when it was queued again) and why the attempt failed")
        .tags(NODE, node, OUTCOME, outcome, REASON, reason)
        .register(registry);
  }

  @Override
  public void attemptStarted(
      String jobId, int attempt, Instant createdAt, Instant queuedAt, Instant startedAt) {
    if (startedAt == null) {
      return;
    }
    if (queuedAt != null) {
      queueWait.record(nonNegative(Duration.between(queuedAt, startedAt)));
    }
    if (attempt == 1 && createdAt != null) {
      submitToStart.record(nonNegative(Duration.between(createdAt, startedAt)));
    }
  }

  @Override
  public void attemptEnded(String jobId, int attempt, AttemptOutcome outcome, JobState jobState) {
    String as = jobState == JobState.QUEUED ? RETRIED : jobState.name();
    FailureReason reason = outcome.failureReason();
    finished(as, reason == null ? NO_REASON : reason.name()).increment();
    if (jobState == JobState.QUEUED
        && outcome.exitCode() != null
        && outcome.exitCode() == AttemptEnd.REQUEUE_EXIT_CODE) {
      preempted(PreemptReason.REQUEUE_EXIT);
    }
  }

  /** One preemption (issue 35): {@code gpuq_preemptions_total{reason}}. */
  public void preempted(PreemptReason reason) {
    preemptions(reason).increment();
  }

  private Counter preemptions(PreemptReason reason) {
    return Counter.builder(MeterNames.PREEMPTIONS)
        .description(
            "Attempts preempted: for fair share (fair_share), by their own exit code"
                + " (requeue_exit), or on request (manual)")
        .tags(NODE, node, REASON, reason.wireName())
        .register(registry);
  }

  private static Duration nonNegative(Duration duration) {
    return duration.isNegative() ? Duration.ZERO : duration;
  }
}
