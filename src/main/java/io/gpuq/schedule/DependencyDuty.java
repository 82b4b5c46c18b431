package io.gpuq.schedule;

import io.gpuq.duty.FixedDelayDuty;
import io.gpuq.job.Dependency;
import io.gpuq.job.DependencyCondition.Verdict;
import io.gpuq.job.DependencyJudgement;
import io.gpuq.job.DependencyTargets;
import io.gpuq.job.DependencyTargets.HeldJob;
import io.gpuq.job.DependencyTargets.Target;
import io.gpuq.job.JobService;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Settles held jobs (issue 37): releases those whose dependencies are all met, and cancels those
 * one of whose dependencies can no longer be met, each in a transaction of its own (the store's
 * versioned update, so that of several nodes running this duty on one database one settles each
 * job, and the others see it settled). Nothing is kept between runs: what a run judges is read from
 * the database, so an end recorded before a crash is acted on by the next run, on any node.
 *
 * <p>A cancel is itself an end that the dependents of the cancelled job wait for: the run judges
 * again until nothing changes (a cascade of a few levels in one run; a deeper one goes on in the
 * next run).
 */
public final class DependencyDuty extends FixedDelayDuty {

  private static final Logger log = LoggerFactory.getLogger(DependencyDuty.class);

  /** Held jobs read per statement. */
  private static final int PAGE = 500;

  /** Rounds of one run: how many levels of a cascade one run follows. */
  private static final int MAX_ROUNDS = 16;

  private final DependencyTargets targets;
  private final JobService jobs;
  private final Runnable released;

  /**
   * @param released told after a run released jobs: wakes the scheduling loop
   */
  public DependencyDuty(
      DependencyTargets targets, JobService jobs, Runnable released, Duration interval) {
    super("dependencies", interval);
    this.targets = targets;
    this.jobs = jobs;
    this.released = released;
  }

  @Override
  public void runOnce() {
    int releasedJobs = 0;
    for (int round = 0; round < MAX_ROUNDS; round++) {
      Settled settled = settleOnce();
      releasedJobs += settled.released();
      if (settled.cancelled() == 0) {
        // A release changes nothing another held job waits for: only an end (here, a cancel) does.
        break;
      }
    }
    if (releasedJobs > 0) {
      released.run();
    }
  }

  private record Settled(int released, int cancelled) {}

  private Settled settleOnce() {
    int releasedJobs = 0;
    int cancelledJobs = 0;
    String after = null;
    while (true) {
      List<HeldJob> held = targets.heldJobs(after, PAGE);
      if (held.isEmpty()) {
        break;
      }
      Set<String> jobIds = new HashSet<>();
      Set<String> sweepIds = new HashSet<>();
      for (HeldJob job : held) {
        for (Dependency dependency : job.dependsOn()) {
          if (dependency.job() != null) {
            jobIds.add(dependency.job());
          } else {
            sweepIds.add(dependency.sweep());
          }
        }
      }
      Map<String, Target> jobTargets = targets.jobs(jobIds);
      Map<String, Target> sweepTargets = targets.sweeps(sweepIds);
      for (HeldJob job : held) {
        DependencyJudgement judgement =
            DependencyJudgement.of(job.dependsOn(), jobTargets, sweepTargets);
        try {
          if (judgement.verdict() == Verdict.MET && jobs.releaseHeld(job.id())) {
            releasedJobs++;
            log.info("job {}: its dependencies are met; it is queued", job.id());
          } else if (judgement.verdict() == Verdict.NEVER
              && jobs.cancelUnmet(job.id(), judgement.message())) {
            cancelledJobs++;
            log.info("job {} cancelled: {}", job.id(), judgement.message());
          }
        } catch (RuntimeException e) {
          // One job's trouble (a database hiccup) leaves the others to be settled; it is judged
          // again next run.
          log.warn("job {}: its dependencies could not be settled", job.id(), e);
        }
      }
      if (held.size() < PAGE) {
        break;
      }
      after = held.get(held.size() - 1).id();
    }
    return new Settled(releasedJobs, cancelledJobs);
  }
}
