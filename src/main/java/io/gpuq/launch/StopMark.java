package io.gpuq.launch;

import java.util.concurrent.atomic.AtomicReference;

/**
 * Why gpuq stops one worker, empty until it does; only the first reason counts, so that a worker
 * stopped twice (a timeout, then a cancel) keeps the reason that stopped it.
 */
public final class StopMark {

  private record Stop(StopReason reason, String detail) {}

  private final AtomicReference<Stop> stop = new AtomicReference<>();

  /** Records the reason, and its words or null; returns whether this was the first. */
  boolean mark(StopReason reason, String detail) {
    return stop.compareAndSet(null, new Stop(reason, detail));
  }

  /** The first reason, or null. */
  StopReason reason() {
    Stop s = stop.get();
    return s == null ? null : s.reason();
  }

  /** The words given with the first reason, or null. */
  String detail() {
    Stop s = stop.get();
    return s == null ? null : s.detail();
  }
}
