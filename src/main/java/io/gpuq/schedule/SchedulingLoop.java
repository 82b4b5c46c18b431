package io.gpuq.schedule;

import io.gpuq.startup.OutOfMemoryExit;
import java.time.Duration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The scheduling duty: one thread that runs a dispatch pass whenever something may have freed or
 * asked for capacity (a submission, a worker's end, a cancellation). Wake-ups coalesce, and a pass
 * an event woke waits after the last one as long as that one took ({@link PassPacing}); a pass that
 * lost jobs to another node is followed by another at once, one that moved the GPU queue while a
 * submission was passed over ({@link Dispatcher#wouldSee}) by another after its gap, and a
 * safety-net wake-up covers changes no event announced (such as another node's submissions).
 */
public class SchedulingLoop {

  private static final Logger log = LoggerFactory.getLogger(SchedulingLoop.class);

  private final Dispatcher dispatcher;
  private final Wakeups wakeups;
  private final Duration safetyNet;
  private final PassPacing pacing = new PassPacing();
  private volatile boolean running;
  private Thread thread;

  public SchedulingLoop(Dispatcher dispatcher, Wakeups wakeups, Duration safetyNet) {
    this.dispatcher = dispatcher;
    this.wakeups = wakeups;
    this.safetyNet = safetyNet;
  }

  /** See {@link Wakeups#wakeUpForGpus}. */
  public void wakeUpForGpus() {
    wakeups.wakeUpForGpus();
  }

  /**
   * A GPU job was queued: wakes a pass that reads the GPU queue, unless that pass would not read
   * the job ({@link Dispatcher#wouldSee}).
   */
  public void queuedGpuJob(String owner, int priority, String id) {
    if (dispatcher.wouldSee(owner, priority, id)) {
      wakeups.wakeUpForGpus();
    }
  }

  /** See {@link Wakeups#wakeUp}. */
  public void wakeUp() {
    wakeups.wakeUp();
  }

  public void start() {
    running = true;
    thread = new Thread(this::loop, "gpuq-scheduler");
    thread.setDaemon(true);
    thread.start();
  }

  public void stop() {
    running = false;
    if (thread != null) {
      thread.interrupt();
      try {
        thread.join(5_000);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
    dispatcher.awaitLaunches(Duration.ofSeconds(5));
  }

  public boolean isRunning() {
    return running;
  }

  private void loop() {
    Duration nextWait = Duration.ZERO;
    while (running) {
      try {
        boolean followUp = nextWait.isZero();
        boolean woken = wakeups.await(nextWait);
        Duration gap = pacing.gapBefore(System.nanoTime());
        if (woken && !followUp && !gap.isZero()) {
          // Wake-ups in the gap are served by the pass after it: take them now.
          Thread.sleep(gap.toMillis(), gap.toNanosPart() % 1_000_000);
          wakeups.await(Duration.ZERO);
        }
        // A pass on the timer (the safety net, start spacing) reads everything: it also covers
        // what no event announces, such as GPU memory that other processes released.
        boolean gpuQueue = wakeups.takeGpuWork() || !woken;
        long start = System.nanoTime();
        DispatchResult result = dispatcher.dispatch(gpuQueue);
        pacing.passed(start, System.nanoTime());
        // A pass places all it can see; only jobs lost to another node leave room to fill now.
        nextWait = result.lost() > 0 ? Duration.ZERO : result.nextWakeWithin(safetyNet);
        if (dispatcher.followUpWanted()) {
          // Paced as any woken pass: what it reads was submitted during this one.
          wakeups.wakeUpForGpus();
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      } catch (RuntimeException | Error e) {
        OutOfMemoryExit.haltIfOutOfMemory(e);
        if (!running) {
          return;
        }
        log.error("scheduling pass failed; retrying after {}", safetyNet, e);
        nextWait = safetyNet;
      }
    }
  }
}
