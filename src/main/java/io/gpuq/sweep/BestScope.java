package io.gpuq.sweep;

import io.gpuq.job.WireNamed;
import java.util.Optional;

/**
 * Which value makes a sweep's best trial, and orders its trials table by the metric.
 *
 * <p>{@link #LAST} is Optuna's {@code best_trial} and Ray Tune's default scope ({@code "last"}):
 * the completed ({@code SUCCEEDED}) trial with the best final value, the last it reported. A pruned
 * trial's mid-run dip is not a result. {@link #ALL} is Ray Tune's {@code scope="all"}: the best
 * value any trial reported at any step, in any state.
 */
public enum BestScope implements WireNamed {
  /** Completed trials by their last reported value; the trials table by each trial's last value. */
  LAST,
  /** Any trial by its best value at any step. */
  ALL;

  public static Optional<BestScope> fromWire(String text) {
    return WireNamed.fromWire(BestScope.class, text);
  }
}
