package io.gpuq.schedule;

import io.gpuq.job.JobService;
import io.gpuq.launch.RunningWorker;
import io.gpuq.launch.StopReason;
import io.gpuq.launch.Workers;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Stops the workers on this node whose attempts the store no longer gives it: a job cancelled
 * (through any node) is stopped as cancelled, a trial pruned by its sweep's rule as pruned; a job
 * declared lost while this node was silent, and perhaps running elsewhere now, is stopped as stale
 * rather than left to run twice.
 */
public final class StopUnownedWorkers {

  private static final Logger log = LoggerFactory.getLogger(StopUnownedWorkers.class);

  private final JobService jobs;
  private final Workers workers;
  private final String node;

  public StopUnownedWorkers(JobService jobs, Workers workers, String node) {
    this.jobs = jobs;
    this.workers = workers;
    this.node = node;
  }

  /**
   * Asks the store about each live worker not being stopped already, and stops the unowned. A
   * worker may end, and its end be stored, between the two reads: it is not unowned but done, and
   * nothing is stopped or said of it.
   *
   * @return how many workers it stopped
   */
  public int runOnce() {
    int stopped = 0;
    for (RunningWorker worker : workers.live()) {
      if (worker.stopReason() != null) {
        continue;
      }
      StopReason reason =
          switch (jobs.standingOf(worker.jobId(), worker.attempt(), node)) {
            case RUNS_THERE -> null;
            case CANCELLED -> StopReason.CANCELLED;
            case PRUNED -> StopReason.PRUNED;
            case GONE -> StopReason.STALE;
          };
      if (reason == null || !workers.stop(worker, reason)) {
        continue;
      }
      stopped++;
      if (reason == StopReason.STALE) {
        log.warn(
            "job {} attempt {} no longer belongs to node {} (declared lost while it was silent):"
                + " stopped its stale worker",
            worker.jobId(),
            worker.attempt(),
            node);
      } else {
        log.info("job {} was {}: stopped its worker", worker.jobId(), reason);
      }
    }
    return stopped;
  }
}
