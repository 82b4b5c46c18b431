package io.gpuq.node;

import io.gpuq.duty.FixedDelayDuty;
import java.time.Duration;

/**
 * Beats for this node, then makes sure every worker it runs still owns its job (the scheduler's
 * {@code StopUnownedWorkers}, handed in as a plain task so that this package does not depend on the
 * scheduler's): a job cancelled through another node has its worker stopped here; after a pause
 * long enough for the other nodes to declare this one dead, its jobs were requeued and may run
 * elsewhere, so the stale workers here are stopped rather than left to run twice.
 */
public final class HeartbeatDuty extends FixedDelayDuty {

  private final NodeRegistry registry;
  private final Runnable stopUnownedWorkers;

  public HeartbeatDuty(NodeRegistry registry, Runnable stopUnownedWorkers, Duration interval) {
    super("heartbeat", interval);
    this.registry = registry;
    this.stopUnownedWorkers = stopUnownedWorkers;
  }

  @Override
  public void runOnce() {
    registry.beat();
    stopUnownedWorkers.run();
  }
}
