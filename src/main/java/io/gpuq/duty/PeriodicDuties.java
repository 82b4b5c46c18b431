package io.gpuq.duty;

import io.gpuq.startup.OutOfMemoryExit;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs every {@link PeriodicDuty} on its own fixed delay; a failing run is logged, not fatal.
 * Started and stopped by whoever composes the node, in its order.
 */
public class PeriodicDuties {

  private static final Logger log = LoggerFactory.getLogger(PeriodicDuties.class);

  private final List<PeriodicDuty> duties;
  private ScheduledExecutorService executor;

  public PeriodicDuties(List<PeriodicDuty> duties) {
    this.duties = List.copyOf(duties);
  }

  /** The duty of this name. */
  public PeriodicDuty duty(String name) {
    return duties.stream()
        .filter(duty -> duty.name().equals(name))
        .findFirst()
        .orElseThrow(() -> new IllegalArgumentException("no duty " + name));
  }

  public void start() {
    executor =
        Executors.newScheduledThreadPool(
            Math.max(1, Math.min(duties.size(), 4)),
            r -> {
              Thread t = new Thread(r, "gpuq-duty");
              t.setDaemon(true);
              return t;
            });
    for (PeriodicDuty duty : duties) {
      if (duty.interval().isZero()) {
        log.debug("duty {} is off", duty.name());
        continue;
      }
      long millis = duty.interval().toMillis();
      executor.scheduleWithFixedDelay(() -> runSafely(duty), millis, millis, TimeUnit.MILLISECONDS);
      log.debug("duty {} runs every {}", duty.name(), duty.interval());
    }
  }

  private static void runSafely(PeriodicDuty duty) {
    try {
      duty.runOnce();
    } catch (RuntimeException | Error e) {
      OutOfMemoryExit.haltIfOutOfMemory(e);
      log.error("duty {} failed; it runs again in {}", duty.name(), duty.interval(), e);
    }
  }

  public void stop() {
    if (executor != null) {
      executor.shutdownNow();
    }
  }

  public boolean isRunning() {
    return executor != null && !executor.isShutdown();
  }
}
