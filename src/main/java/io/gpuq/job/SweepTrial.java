package io.gpuq.job;

import java.util.Objects;

/**
 * What makes a job one of a sweep's trials: the sweep, the trial's number in it (from 0), and its
 * parameters as a JSON object in the sweep's declared order.
 */
public record SweepTrial(String sweepId, int number, String parametersJson) {

  public SweepTrial {
    Objects.requireNonNull(sweepId, "sweepId");
    Objects.requireNonNull(parametersJson, "parametersJson");
    if (number < 0) {
      throw new IllegalArgumentException("a trial number is 0 or more, not " + number);
    }
  }
}
