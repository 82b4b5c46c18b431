package io.gpuq.sweep;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.OptionalDouble;
import java.util.OptionalLong;

/**
 * The median stopping rule (Golovin et al., 2017, "Google Vizier"), exactly as Optuna's {@code
 * MedianPruner(n_startup_trials=startupTrials, n_warmup_steps=warmupSteps, interval_steps=1,
 * n_min_trials=1)} applies it ({@code PercentilePruner} at the 50th percentile): after each value
 * it reports, a trial whose step s (its highest so far) is {@code warmupSteps} or more is pruned
 * when its best value so far is worse than the median of the values that the completed trials
 * reported at step s.
 *
 * <p>Nothing is pruned before {@code startupTrials} trials have completed, nor when no completed
 * trial reported step s. A trial whose every value so far is NaN (a diverged loss) is pruned.
 * Completed means ended {@code SUCCEEDED}: Optuna's {@code COMPLETE}; pruned, failed and cancelled
 * trials do not count. Which trials are completed is read when the value is judged, as Optuna reads
 * them when {@code should_prune} is called.
 */
public record MedianStopping(int startupTrials, long warmupSteps) implements EarlyStopping {

  public static final int DEFAULT_STARTUP_TRIALS = 5;
  public static final long DEFAULT_WARMUP_STEPS = 0;

  public MedianStopping {
    if (startupTrials < 0 || warmupSteps < 0) {
      throw new IllegalArgumentException("startupTrials and warmupSteps are 0 or more");
    }
  }

  @Override
  public OptionalLong pruneStep(
      TrialHistory trial, Collection<TrialHistory> sweep, Goal goal, int from) {
    List<TrialHistory> completed = new ArrayList<>();
    for (TrialHistory other : sweep) {
      if (other.completed() && other.trial() != trial.trial()) {
        completed.add(other);
      }
    }
    if (completed.isEmpty() || completed.size() < startupTrials) {
      return OptionalLong.empty();
    }
    long step = Long.MIN_VALUE;
    double best = Double.NaN;
    List<Intermediate> values = trial.values();
    for (int i = 0; i < values.size(); i++) {
      Intermediate value = values.get(i);
      step = Math.max(step, value.step());
      best = goal.better(best, value.value());
      if (i < from || step < warmupSteps) {
        continue;
      }
      if (Double.isNaN(best)) {
        return OptionalLong.of(step);
      }
      OptionalDouble median = medianAt(completed, step);
      if (median.isPresent() && goal.worse(best, median.getAsDouble())) {
        return OptionalLong.of(step);
      }
    }
    return OptionalLong.empty();
  }

  private static OptionalDouble medianAt(List<TrialHistory> completed, long step) {
    List<Double> atStep = new ArrayList<>();
    for (TrialHistory other : completed) {
      OptionalDouble value = other.valueAt(step);
      if (value.isPresent() && !Double.isNaN(value.getAsDouble())) {
        atStep.add(value.getAsDouble());
      }
    }
    return atStep.isEmpty() ? OptionalDouble.empty() : OptionalDouble.of(median(atStep));
  }

  /**
   * The middle value, or halfway between the two middle ones computed as numpy's 50th percentile
   * does ({@code b - (b - a) * 0.5}), to the last bit.
   */
  static double median(List<Double> values) {
    List<Double> sorted = new ArrayList<>(values);
    sorted.sort(null);
    int n = sorted.size();
    if (n % 2 == 1) {
      return sorted.get(n / 2);
    }
    double a = sorted.get(n / 2 - 1);
    double b = sorted.get(n / 2);
    return b - (b - a) * 0.5;
  }

  @Override
  public String wireName() {
    return "median";
  }
}
