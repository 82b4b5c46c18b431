package io.gpuq.node;

import org.springframework.context.SmartLifecycle;

/**
 * This node's first heartbeat, at start: the other nodes count it, and its GPUs, alive before it
 * serves requests and before it recovers or schedules jobs, rather than one heartbeat interval
 * later, when the heartbeat duty first runs.
 */
public final class NodeMembership implements SmartLifecycle {

  /** Before the web server (DEFAULT_PHASE - 2048), the worker recovery and the scheduling loop. */
  private static final int PHASE = 0;

  private final NodeRegistry registry;
  private volatile boolean running;

  public NodeMembership(NodeRegistry registry) {
    this.registry = registry;
  }

  @Override
  public void start() {
    registry.beat();
    running = true;
  }

  @Override
  public void stop() {
    running = false;
  }

  @Override
  public boolean isRunning() {
    return running;
  }

  @Override
  public int getPhase() {
    return PHASE;
  }
}
