package io.gpuq.node;

import io.gpuq.duty.PeriodicDuty;
import io.gpuq.job.JobService;
import java.time.Duration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Declares the running jobs of silent nodes LOST, which requeues those with attempts left so that a
 * live node runs them. Every node reaps; the version-checked update lets only one win.
 */
public final class DeadNodeReaper implements PeriodicDuty {

  private static final Logger log = LoggerFactory.getLogger(DeadNodeReaper.class);

  private final NodeRegistry registry;
  private final JobService jobs;
  private final Runnable wakeSchedulerForGpus;
  private final Duration interval;

  public DeadNodeReaper(
      NodeRegistry registry, JobService jobs, Runnable wakeSchedulerForGpus, Duration interval) {
    this.registry = registry;
    this.jobs = jobs;
    this.wakeSchedulerForGpus = wakeSchedulerForGpus;
    this.interval = interval;
  }

  @Override
  public String name() {
    return "dead-node-reaper";
  }

  @Override
  public Duration interval() {
    return interval;
  }

  @Override
  public void runOnce() {
    int reaped = 0;
    for (String node : registry.silentNodes()) {
      int lost = jobs.declareLostOn(node, "node " + node + " stopped heartbeating");
      if (lost > 0) {
        log.warn("node {} is silent: declared {} of its running jobs LOST", node, lost);
        reaped += lost;
      }
    }
    if (reaped > 0) {
      // Requeued jobs may need GPUs.
      wakeSchedulerForGpus.run();
    }
  }
}
