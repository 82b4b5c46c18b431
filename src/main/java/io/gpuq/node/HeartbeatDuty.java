package io.gpuq.node;

import io.gpuq.duty.PeriodicDuty;
import io.gpuq.job.JobService;
import io.gpuq.launch.RunningWorker;
import io.gpuq.launch.StopReason;
import io.gpuq.launch.Workers;
import java.time.Duration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Beats for this node, then makes sure every worker it runs still owns its job: after a pause long
 * enough for the other nodes to declare this one dead, its jobs were requeued and may run
 * elsewhere, so the stale workers here are stopped rather than left to run twice.
 */
public final class HeartbeatDuty implements PeriodicDuty {

  private static final Logger log = LoggerFactory.getLogger(HeartbeatDuty.class);

  private final NodeRegistry registry;
  private final JobService jobs;
  private final Workers workers;
  private final Duration interval;

  public HeartbeatDuty(NodeRegistry registry, JobService jobs, Workers workers, Duration interval) {
    this.registry = registry;
    this.jobs = jobs;
    this.workers = workers;
    this.interval = interval;
  }

  @Override
  public String name() {
    return "heartbeat";
  }

  @Override
  public Duration interval() {
    return interval;
  }

  @Override
  public void runOnce() {
    registry.beat();
    for (RunningWorker worker : workers.live()) {
      if (worker.stopReason() == null
          && !jobs.isRunningHere(worker.jobId(), worker.attempt(), registry.self())) {
        log.warn(
            "job {} attempt {} no longer belongs to node {} (declared lost while it was silent):"
                + " stopping its stale worker",
            worker.jobId(),
            worker.attempt(),
            registry.self());
        workers.stop(worker.jobId(), StopReason.STALE);
      }
    }
  }
}
