package io.gpuq.sweep;

import io.gpuq.text.UserText;

/** A metric's name: a key of a metrics-file line other than {@code step}. */
final class MetricNames {

  static final String STEP = "step";

  static final String RULE =
      "a metric name is 1 to "
          + SweepLimits.MAX_METRIC_NAME_LENGTH
          + " printable characters, and not \"step\"";

  private MetricNames() {}

  static boolean isValid(String name) {
    return name != null
        && !name.isEmpty()
        && name.length() <= SweepLimits.MAX_METRIC_NAME_LENGTH
        && !name.equals(STEP)
        && !UserText.hasControlCharacter(name)
        && !UserText.hasLoneSurrogate(name);
  }
}
