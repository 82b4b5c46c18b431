package io.gpuq.sweep;

import io.gpuq.text.UserText;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * A trial's labels: the template's, then {@code sweep=<id>}, then each parameter as {@code
 * name=value} where it fits a job's label rules, so that {@code ?label=lr:0.001} finds trials. The
 * rules are the job validator's ({@code io.gpuq.job.JobRequestValidator}: at most 64 labels, keys
 * of 1 to 63 letters, digits, '_', '.', '-' or '/' starting with a letter or digit, values of at
 * most 256 printable characters); a parameter that does not fit is left out of the labels, never
 * refused, as it is still in the trial's parameters.
 */
public final class TrialLabels {

  /** The label every trial carries; a template may not set it. */
  public static final String SWEEP = "sweep";

  static final int MAX_LABELS = 64;
  static final int MAX_VALUE_LENGTH = 256;
  private static final Pattern KEY = Pattern.compile("[A-Za-z0-9][A-Za-z0-9_./-]{0,62}");

  private TrialLabels() {}

  public static Map<String, String> of(
      Map<String, String> templateLabels, String sweepId, Trial trial) {
    Map<String, String> labels = new LinkedHashMap<>(templateLabels);
    labels.put(SWEEP, sweepId);
    trial
        .parameters()
        .forEach(
            (name, value) -> {
              if (labels.size() < MAX_LABELS
                  && !labels.containsKey(name)
                  && isKey(name)
                  && isValue(value.text())) {
                labels.put(name, value.text());
              }
            });
    return labels;
  }

  private static boolean isKey(String name) {
    return KEY.matcher(name).matches();
  }

  private static boolean isValue(String text) {
    return text.length() <= MAX_VALUE_LENGTH
        && !UserText.hasControlCharacter(text)
        && !UserText.hasLoneSurrogate(text);
  }
}
