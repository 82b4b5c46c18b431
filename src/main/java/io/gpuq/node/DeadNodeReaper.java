package io.gpuq.node;

import io.gpuq.duty.FixedDelayDuty;
import io.gpuq.job.JobService;
import java.time.Duration;
import java.util.Collection;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Declares the running jobs of silent nodes LOST, which requeues those with attempts left so that a
 * live node runs them. Every node reaps; the store's guarded writes let only one win.
 */
public final class DeadNodeReaper extends FixedDelayDuty {

  private static final Logger log = LoggerFactory.getLogger(DeadNodeReaper.class);

  private final Supplier<Collection<String>> silentNodes;
  private final JobService jobs;
  private final Runnable requeued;

  /**
   * @param silentNodes the nodes that stopped heartbeating
   * @param requeued told once a pass declared jobs lost: some may be queued again, for GPUs too
   */
  public DeadNodeReaper(
      Supplier<Collection<String>> silentNodes,
      JobService jobs,
      Runnable requeued,
      Duration interval) {
    super("dead-node-reaper", interval);
    this.silentNodes = silentNodes;
    this.jobs = jobs;
    this.requeued = requeued;
  }

  @Override
  public void runOnce() {
    int reaped = 0;
    for (String node : silentNodes.get()) {
      int lost = jobs.declareLostOn(node, "node " + node + " stopped heartbeating");
      if (lost > 0) {
        log.warn("node {} is silent: declared {} of its running jobs LOST", node, lost);
        reaped += lost;
      }
    }
    if (reaped > 0) {
      requeued.run();
    }
  }
}
