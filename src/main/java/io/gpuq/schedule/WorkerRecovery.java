package io.gpuq.schedule;

import io.gpuq.job.Job;
import io.gpuq.job.JobService;
import io.gpuq.job.LostAttempt;
import io.gpuq.job.StoppedAttempt;
import io.gpuq.job.WorkerProcess;
import io.gpuq.launch.Workers;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * At start-up, before the scheduler claims anything, takes back the jobs an earlier gpuq on this
 * node left running: their workers outlive gpuq, so they are re-adopted if still alive, and their
 * outcome recorded (exit file) or declared LOST if not. Workers whose attempts the store ended
 * meanwhile (declared lost and given away; cancelled; pruned) are stopped first, the store's ending
 * kept.
 */
public class WorkerRecovery {

  private static final Logger log = LoggerFactory.getLogger(WorkerRecovery.class);

  /**
   * How far back a cancel, a prune or a declaration of loss may lie and its worker still be looked
   * for: longer than any plausible stretch gpuq stays down, short enough that start-up reads few of
   * the attempts ended since.
   */
  static final Duration LEFT_BEHIND_WITHIN = Duration.ofDays(7);

  private final JobService jobs;
  private final JobExecution execution;
  private final String node;
  private volatile boolean running;

  private final Workers workers;

  public WorkerRecovery(JobService jobs, JobExecution execution, Workers workers, String node) {
    this.jobs = jobs;
    this.execution = execution;
    this.workers = workers;
    this.node = node;
  }

  public void start() {
    stopStaleWorkers();
    stopWorkersOfStoppedAttempts();
    List<Job> left = jobs.runningOn(node);
    int adopted = 0;
    for (Job job : left) {
      try {
        if (execution.recover(job)) {
          adopted++;
        }
      } catch (RuntimeException e) {
        log.error(
            "could not recover job {}; it stays RUNNING until its node is reaped", job.id(), e);
      }
    }
    if (!left.isEmpty()) {
      log.info(
          "recovered {} job(s) left running on node {}: {} re-adopted, {} ended while gpuq was down",
          left.size(),
          node,
          adopted,
          left.size() - adopted);
    }
    // Every worker that still runs is watched again by now: the groups of the others go.
    workers.removeUnwatchedGroups();
    running = true;
  }

  /**
   * Workers of attempts that another node declared lost while this one was silent may still run;
   * their jobs run elsewhere now, so they are stopped instead of running twice.
   */
  private void stopStaleWorkers() {
    for (LostAttempt attempt : jobs.lostAttemptsOn(node, LEFT_BEHIND_WITHIN)) {
      Optional<WorkerProcess> process =
          workers.processOf(
              attempt.jobId(), attempt.attempt(), attempt.pid(), attempt.pidStartTicks());
      if (process.isPresent()
          && workers.stopOrphan(process.get().pid(), process.get().startTicks())) {
        log.warn(
            "stopped the stale worker (pid {}) of a job attempt declared lost while node {} was"
                + " silent",
            process.get().pid(),
            node);
      }
    }
  }

  /**
   * Workers whose jobs were cancelled, or trials pruned, while gpuq here was down (through another
   * node, or straight in the database), or just before it died, would otherwise run on unowned:
   * {@link StopUnownedWorkers} only sees the workers gpuq watches.
   */
  private void stopWorkersOfStoppedAttempts() {
    for (StoppedAttempt attempt : jobs.stoppedAttemptsOn(node, LEFT_BEHIND_WITHIN)) {
      try {
        if (execution.stopLeftBehind(attempt)) {
          log.info(
              "job {} attempt {} ended {} while its worker ran here unwatched: stopping it",
              attempt.jobId(),
              attempt.attempt(),
              attempt.state());
        }
      } catch (RuntimeException e) {
        log.error(
            "could not stop the worker of job {} attempt {}, which ended {}",
            attempt.jobId(),
            attempt.attempt(),
            attempt.state(),
            e);
      }
    }
  }

  public void stop() {
    running = false;
  }

  public boolean isRunning() {
    return running;
  }
}
