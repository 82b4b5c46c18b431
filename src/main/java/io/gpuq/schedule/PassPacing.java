package io.gpuq.schedule;

import java.time.Duration;

/**
 * How long a pass that an event woke waits after the last one ended: as long as the last one took,
 * at most {@link #MAX_GAP}. Wake-ups coalesce, but a burst of submissions (hundreds a second) kept
 * the loop passing back to back, each pass as long as its queue's lookahead is to read (tens of
 * milliseconds with 100,000 queued): the scheduler took a core from the submissions it served.
 * Paced, it is busy at most half the time in a burst, and a burst's submissions during the gap are
 * all served by the one pass after it. A short queue's pass takes a millisecond or two, and so does
 * its gap: nothing waits that did not before.
 */
final class PassPacing {

  /** The longest gap: what a job woken for may wait beyond a pass, however slow the last one. */
  static final Duration MAX_GAP = Duration.ofMillis(200);

  private long lastTook;
  private long lastEnded;
  private boolean passed;

  /** A pass ran from {@code startNanos} to {@code endNanos} (of {@link System#nanoTime}). */
  void passed(long startNanos, long endNanos) {
    lastTook = Math.max(0, endNanos - startNanos);
    lastEnded = endNanos;
    passed = true;
  }

  /** How long a pass woken at {@code nowNanos} waits before it starts. */
  Duration gapBefore(long nowNanos) {
    if (!passed) {
      return Duration.ZERO;
    }
    long gap = Math.min(lastTook, MAX_GAP.toNanos()) - (nowNanos - lastEnded);
    return gap > 0 ? Duration.ofNanos(gap) : Duration.ZERO;
  }
}
