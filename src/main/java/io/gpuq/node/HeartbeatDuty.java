package io.gpuq.node;

import io.gpuq.schedule.PeriodicDuty;
import io.gpuq.schedule.StopUnownedWorkers;
import java.time.Duration;

/**
 * Beats for this node, then makes sure every worker it runs still owns its job ({@link
 * StopUnownedWorkers}): a job cancelled through another node has its worker stopped here; after a
 * pause long enough for the other nodes to declare this one dead, its jobs were requeued and may
 * run elsewhere, so the stale workers here are stopped rather than left to run twice.
 */
public final class HeartbeatDuty implements PeriodicDuty {

  private final NodeRegistry registry;
  private final StopUnownedWorkers stopUnowned;
  private final Duration interval;

  public HeartbeatDuty(NodeRegistry registry, StopUnownedWorkers stopUnowned, Duration interval) {
    this.registry = registry;
    this.stopUnowned = stopUnowned;
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
    stopUnowned.runOnce();
  }
}
