package io.gpuq.schedule;

import java.time.Duration;

/**
 * What one dispatch pass did.
 *
 * @param started how many jobs it started
 * @param retryIn when a job could start after a short wait (start spacing), or null
 */
public record DispatchResult(int started, Duration retryIn) {

  Duration nextWakeWithin(Duration safetyNet) {
    if (retryIn == null || retryIn.compareTo(safetyNet) > 0) {
      return safetyNet;
    }
    return retryIn.isNegative() || retryIn.isZero() ? Duration.ofMillis(1) : retryIn;
  }
}
