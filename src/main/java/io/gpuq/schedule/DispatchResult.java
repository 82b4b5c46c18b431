package io.gpuq.schedule;

import java.time.Duration;

/**
 * What one dispatch pass did.
 *
 * @param started how many jobs it claimed and set launching
 * @param lost how many of the jobs it placed another node claimed first: what they would have taken
 *     is still free, so another pass should follow at once
 * @param retryIn when a job could start after a short wait (start spacing), or null
 */
public record DispatchResult(int started, int lost, Duration retryIn) {

  Duration nextWakeWithin(Duration safetyNet) {
    if (retryIn == null || retryIn.compareTo(safetyNet) > 0) {
      return safetyNet;
    }
    return retryIn.isNegative() || retryIn.isZero() ? Duration.ofMillis(1) : retryIn;
  }
}
