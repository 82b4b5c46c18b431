package io.gpuq.sweep;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * One trial: its number in the sweep (from 0, as Optuna and Slurm arrays count) and its parameters
 * in the sweep's declared order.
 */
public record Trial(int number, Map<String, ParameterValue> parameters) {

  public Trial {
    if (number < 0) {
      throw new IllegalArgumentException("a trial number is 0 or more, not " + number);
    }
    parameters = Collections.unmodifiableMap(new LinkedHashMap<>(parameters));
  }

  /** The parameters as compact JSON, in declared order: {@code GPUQ_PARAMS}. */
  public String parametersJson() {
    return JsonText.object(parameters);
  }
}
