package io.gpuq.node;

import io.gpuq.duty.PeriodicDuty;
import java.time.Duration;

/**
 * Beats for this node, then makes sure every worker it runs still owns its job (the scheduler's
 * {@code StopUnownedWorkers}, handed in as a plain task so that this package does not depend on the
 * scheduler's): a job cancelled through another node has its worker stopped here; after a pause
 * long enough for the other nodes to declare this one dead, its jobs were requeued and may run
 * elsewhere, so the stale workers here are stopped rather than left to run twice.
 */
public final class HeartbeatDuty implements PeriodicDuty {

  private final NodeRegistry registry;
  private final Runnable stopUnownedWorkers;
  private final Duration interval;

  public HeartbeatDuty(NodeRegistry registry, Runnable stopUnownedWorkers, Duration interval) {
    this.registry = registry;
    this.stopUnownedWorkers = stopUnownedWorkers;
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
    stopUnownedWorkers.run();
  }
}
