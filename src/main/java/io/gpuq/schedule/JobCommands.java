package io.gpuq.schedule;

import io.gpuq.job.Caller;
import io.gpuq.job.Job;
import io.gpuq.job.JobNotFoundException;
import io.gpuq.job.JobRequest;
import io.gpuq.job.JobService;
import io.gpuq.job.JobSpec;
import io.gpuq.job.NotifyTarget;
import io.gpuq.job.PreemptReason;
import io.gpuq.job.Submission;
import io.gpuq.launch.StopReason;
import io.gpuq.launch.Workers;
import io.gpuq.notify.NotifyChecks;
import java.util.Collection;
import java.util.List;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * What a caller asks of gpuq about its jobs, each one call: submit one (validated, room checked,
 * admitted, stored, the loop woken) and cancel one (stored, its worker here stopped, the loop
 * woken). A sweep's trials are queued and cancelled through it too. The web layer only maps HTTP
 * onto these.
 */
public final class JobCommands {

  private final JobService jobs;
  private final SubmitChecks checks;
  private final Workers workers;
  private final SchedulingLoop loop;
  private final DependencyChecks dependencies;
  private final Consumer<PreemptReason> preempted;
  private NotifyChecks notifyChecks = new NotifyChecks(List.of());

  public JobCommands(JobService jobs, SubmitChecks checks, Workers workers, SchedulingLoop loop) {
    this(jobs, checks, workers, loop, DependencyChecks.NONE, reason -> {});
  }

  /**
   * @param dependencies checks a submission's {@code dependsOn} (issue 37)
   * @param preempted counts each requeue asked for (issue 35)
   */
  public JobCommands(
      JobService jobs,
      SubmitChecks checks,
      Workers workers,
      SchedulingLoop loop,
      DependencyChecks dependencies,
      Consumer<PreemptReason> preempted) {
    this.dependencies = dependencies;
    this.preempted = preempted;
    this.jobs = jobs;
    this.checks = checks;
    this.workers = workers;
    this.loop = loop;
  }

  /**
   * Checks submissions' {@code notify} (issue 37) against the operator's allowed hosts; until this
   * is called, none is allowed.
   */
  public JobCommands notifications(NotifyChecks checks) {
    this.notifyChecks = checks;
    return this;
  }

  /** A sweep's {@code notify} (issue 37), checked: DONE only. */
  public List<NotifyTarget> checkSweepNotify(List<JobRequest.Notify> notify) {
    return notifyChecks.check(notify, true);
  }

  /** A submission's answer, read from the job as stored, and whether this call created the job. */
  public record Submitted<A>(A answer, boolean created) {}

  /**
   * Submits a job, unless this caller already submitted one with the same idempotency key: then
   * that one is answered and nothing is created.
   *
   * @param answer what the caller is answered, read from the stored job before the loop is woken
   *     (so that the loop has not taken it yet)
   */
  public <A> Submitted<A> submit(
      Caller caller, JobRequest request, String idempotencyKey, Function<Job, A> answer) {
    JobSpec spec = checks.check(caller.name(), request);
    DependencyChecks.Checked dependsOn = dependencies.check(caller, request.dependsOn());
    List<NotifyTarget> notify = notifyChecks.check(request.notifications(), false);
    Submission submission =
        jobs.submit(caller, spec, idempotencyKey, dependsOn.dependsOn(), dependsOn.held(), notify);
    A answered = answer.apply(submission.job());
    if (submission.created() && !submission.job().held()) {
      Job job = submission.job();
      if (spec.gpus() > 0) {
        loop.queuedGpuJob(job.owner(), job.priority(), job.id());
      } else {
        loop.wakeUp();
      }
    }
    return new Submitted<>(answered, submission.created());
  }

  /** A sweep's {@code dependsOn} (issue 37), checked as a job's: its trials wait for it. */
  public DependencyChecks.Checked checkDependencies(
      Caller caller, java.util.List<io.gpuq.job.JobRequest.DependsOn> dependsOn) {
    return dependencies.check(caller, dependsOn);
  }

  /** Why a held job waits (issue 37); null for a job that is not held. */
  public String waitingReason(Job job) {
    if (!job.held() || job.state() != io.gpuq.job.JobState.QUEUED) {
      return null;
    }
    return dependencies.waitingReason(job.dependsOn());
  }

  /**
   * Cancels a job: a queued one at once, a running one's worker (on this node) stopped; other nodes
   * stop theirs at their next heartbeat.
   */
  public Job cancel(Caller caller, String id) {
    Job job = jobs.cancel(caller, id, running -> workers.stop(running.id(), StopReason.CANCELLED));
    loop.wakeUp();
    return job;
  }

  /**
   * Prunes a running trial of this sweep (its driver's pruner stopped it): stored, its worker here
   * stopped, other nodes' at their next heartbeat.
   *
   * @throws JobNotFoundException when the job is no trial of this sweep
   */
  public Job prune(Caller caller, String sweepId, String id, String why) {
    Job trial = jobs.get(caller, id);
    if (trial.sweepTrial().map(t -> !t.sweepId().equals(sweepId)).orElse(true)) {
      throw new JobNotFoundException(id);
    }
    Job job = jobs.prune(caller, id, why, running -> workers.stop(running.id(), StopReason.PRUNED));
    loop.wakeUp();
    return job;
  }

  /**
   * Requeues a running job now (issue 35): stored, then its worker here gets its preemption signal
   * and SIGKILL after its grace; another node's pass signals its own. Its end requeues it.
   */
  public Job requeue(Caller caller, String id) {
    Job job =
        jobs.requeue(
            caller,
            id,
            running ->
                workers.stop(
                    running.id(),
                    StopReason.PREEMPTED,
                    "requeued on request",
                    running.preemption().signal().number(),
                    running.preemption().grace()));
    preempted.accept(PreemptReason.MANUAL);
    loop.wakeUp();
    return job;
  }

  /** Jobs were queued (a sweep's trials): wakes the loop, for the GPUs if one needs them. */
  public void queued(boolean forGpus) {
    if (forGpus) {
      loop.wakeUpForGpus();
    } else {
      loop.wakeUp();
    }
  }

  /**
   * These jobs, running when the store cancelled them (a sweep's trials), stop: their workers on
   * this node at once, other nodes' at their next heartbeat.
   */
  public void cancelled(Collection<String> running) {
    running.forEach(job -> workers.stop(job, StopReason.CANCELLED));
    loop.wakeUp();
  }
}
