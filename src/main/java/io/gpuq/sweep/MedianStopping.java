package io.gpuq.sweep;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.OptionalDouble;
import java.util.OptionalLong;

/**
 * The median stopping rule (Golovin et al., 2017, "Google Vizier"), exactly as Optuna's {@code
 * MedianPruner} applies it ({@code PercentilePruner} at the 50th percentile, {@code interval_steps
 * = 1}, {@code n_min_trials = 1}): at its last reported step s, a trial is pruned when its best
 * value so far is worse than the median of the values that the completed trials reported at step s.
 *
 * <p>Nothing is pruned before {@code startupTrials} trials have completed, nor before step {@code
 * warmupSteps}, nor when no completed trial reported step s. A trial whose every value is NaN (a
 * diverged loss) is pruned. Completed means ended {@code SUCCEEDED}: Optuna's {@code COMPLETE};
 * pruned, failed and cancelled trials do not count.
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
  public boolean shouldPrune(TrialHistory trial, Collection<TrialHistory> sweep, Goal goal) {
    List<TrialHistory> completed = new ArrayList<>();
    for (TrialHistory other : sweep) {
      if (other.completed() && other.trial() != trial.trial()) {
        completed.add(other);
      }
    }
    if (completed.isEmpty() || completed.size() < startupTrials) {
      return false;
    }
    OptionalLong step = trial.lastStep();
    if (step.isEmpty() || step.getAsLong() < warmupSteps) {
      return false;
    }
    double best = trial.best(goal).orElseThrow();
    if (Double.isNaN(best)) {
      return true;
    }
    List<Double> atStep = new ArrayList<>();
    for (TrialHistory other : completed) {
      OptionalDouble value = other.valueAt(step.getAsLong());
      if (value.isPresent() && !Double.isNaN(value.getAsDouble())) {
        atStep.add(value.getAsDouble());
      }
    }
    if (atStep.isEmpty()) {
      return false;
    }
    return goal.worse(best, median(atStep));
  }

  /** The middle value, or the mean of the two middle ones (numpy's 50th percentile). */
  static double median(List<Double> values) {
    List<Double> sorted = new ArrayList<>(values);
    sorted.sort(null);
    int n = sorted.size();
    return n % 2 == 1 ? sorted.get(n / 2) : (sorted.get(n / 2 - 1) + sorted.get(n / 2)) / 2;
  }

  @Override
  public String wireName() {
    return "median";
  }
}
