package io.gpuq.reported;

import io.gpuq.text.UserText;

/** A metric's name: a key of a metrics-file line other than {@code step}. */
public final class MetricNames {

  /** The longest name, in characters. */
  public static final int MAX_LENGTH = 128;

  static final String STEP = "step";

  public static final String RULE =
      "a metric name is 1 to " + MAX_LENGTH + " printable characters, and not \"step\"";

  private MetricNames() {}

  public static boolean isValid(String name) {
    return name != null
        && !name.isEmpty()
        && name.length() <= MAX_LENGTH
        && !name.equals(STEP)
        && !UserText.hasControlCharacter(name)
        && !UserText.hasLoneSurrogate(name);
  }
}
