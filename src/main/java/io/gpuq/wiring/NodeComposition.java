package io.gpuq.wiring;

import io.gpuq.duty.PeriodicDuties;
import io.gpuq.duty.PeriodicDuty;
import io.gpuq.schedule.SchedulingLoop;
import io.gpuq.schedule.WorkerRecovery;
import java.util.List;
import org.springframework.context.SmartLifecycle;

/**
 * What this node runs on its own, and in which order it starts and stops; the one place that says
 * so. Start:
 *
 * <ol>
 *   <li>the node's first heartbeat, so that the other nodes count it, and its GPUs, alive before it
 *       serves requests and before it recovers or schedules jobs ({@link #membership()}, phase 0);
 *   <li>Spring Boot's web server (phase {@code Integer.MAX_VALUE - 2048}), and its graceful
 *       shutdown ({@code - 1024});
 *   <li>the recovery of the workers an earlier gpuq on this node left running, before the loop,
 *       which must not place work on capacity that is still taken;
 *   <li>the scheduling loop, after the web server so that a pass never races the application's own
 *       start-up;
 *   <li>the periodic duties ({@link CompositionConfiguration} lists them with their intervals).
 * </ol>
 *
 * <p>Steps 3 to 5 are this lifecycle, phase {@value #PHASE}. Stop is the reverse: the duties, the
 * loop (which waits for the launches under way), the recovery, then the web server's graceful
 * shutdown.
 */
public final class NodeComposition implements SmartLifecycle {

  /** After the web server (and its graceful shutdown), before the lifecycles of default phase. */
  static final int PHASE = Integer.MAX_VALUE - 200;

  private final WorkerRecovery recovery;
  private final SchedulingLoop loop;
  private final PeriodicDuties duties;
  private volatile boolean running;

  NodeComposition(WorkerRecovery recovery, SchedulingLoop loop, List<PeriodicDuty> duties) {
    this.recovery = recovery;
    this.loop = loop;
    this.duties = new PeriodicDuties(duties);
  }

  @Override
  public void start() {
    recovery.start();
    loop.start();
    duties.start();
    running = true;
  }

  @Override
  public void stop() {
    running = false;
    duties.stop();
    loop.stop();
    recovery.stop();
  }

  @Override
  public boolean isRunning() {
    return running;
  }

  @Override
  public int getPhase() {
    return PHASE;
  }

  /** The duty of this name, for a test to run it once. */
  public PeriodicDuty duty(String name) {
    return duties.duty(name);
  }

  /**
   * Step 1: the first heartbeat, before the web server starts. A lifecycle of its own that does not
   * depend on the composition: Spring starts a lifecycle's dependencies before it, whatever their
   * phase, so a membership built from the composition started the loop and the duties first.
   */
  static SmartLifecycle membership(Runnable firstHeartbeat) {
    return new SmartLifecycle() {
      private volatile boolean beaten;

      @Override
      public void start() {
        firstHeartbeat.run();
        beaten = true;
      }

      @Override
      public void stop() {
        beaten = false;
      }

      @Override
      public boolean isRunning() {
        return beaten;
      }

      /** Before the web server (DEFAULT_PHASE - 2048), the worker recovery and the loop. */
      @Override
      public int getPhase() {
        return 0;
      }
    };
  }
}
