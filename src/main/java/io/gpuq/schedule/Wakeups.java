package io.gpuq.schedule;

import io.gpuq.job.JobPlacement;
import java.time.Duration;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * What asks the scheduling loop for a pass: a submission, a worker's end, a cancellation, a node
 * reaped. Wake-ups coalesce. Made before the loop and the steps that wake it, so that each is
 * handed it when built instead of being told of the others afterwards.
 */
public final class Wakeups {

  private final Semaphore wake = new Semaphore(0);
  private final AtomicBoolean gpuWork = new AtomicBoolean(true);

  /**
   * Asks for a pass that also reads the GPU jobs' queue: a GPU job was submitted or requeued, or a
   * GPU worker's place became free.
   */
  public void wakeUpForGpus() {
    gpuWork.set(true);
    wakeUp();
  }

  /**
   * Asks for a pass soon; cheap, and safe to call from any thread. Such a pass reads the GPU jobs'
   * queue only if the last read found jobs waiting there (see {@link #wakeUpForGpus}).
   */
  public void wakeUp() {
    if (wake.availablePermits() == 0) {
      wake.release();
    }
  }

  /** The place a worker held is free: a pass may start the next job there. */
  public void capacityFreed(JobPlacement placement) {
    if (placement.gpus().isEmpty()) {
      wakeUp();
    } else {
      wakeUpForGpus();
    }
  }

  /**
   * Waits for a wake-up, at most {@code timeout}, and takes every wake-up pending.
   *
   * @return whether it was woken, rather than timed out
   */
  boolean await(Duration timeout) throws InterruptedException {
    boolean woken = timeout.isZero() || wake.tryAcquire(timeout.toMillis(), TimeUnit.MILLISECONDS);
    wake.drainPermits();
    return woken;
  }

  /** Whether a pass was asked to read the GPU queue since the last call. */
  boolean takeGpuWork() {
    return gpuWork.getAndSet(false);
  }
}
