package io.gpuq.sweep;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.OptionalLong;
import java.util.Set;

/**
 * What the early-stopping rules know of one trial: its number, whether it completed (ended {@code
 * SUCCEEDED}), and its intermediate values of the sweep's metric in the order gpuq read them. A
 * step reported twice keeps its first value, as Optuna's {@code trial.report} does.
 */
public record TrialHistory(int trial, boolean completed, List<Intermediate> values) {

  public TrialHistory {
    Set<Long> seen = new HashSet<>();
    List<Intermediate> firstPerStep = new ArrayList<>(values.size());
    for (Intermediate value : values) {
      if (seen.add(value.step())) {
        firstPerStep.add(value);
      }
    }
    values = Collections.unmodifiableList(firstPerStep);
  }

  /** The highest step reported (Optuna's {@code last_step}), if any. */
  public OptionalLong lastStep() {
    return values.stream().mapToLong(Intermediate::step).max();
  }

  /** The value reported at exactly {@code step}. */
  public OptionalDouble valueAt(long step) {
    for (Intermediate value : values) {
      if (value.step() == step) {
        return OptionalDouble.of(value.value());
      }
    }
    return OptionalDouble.empty();
  }

  /** The best value over all steps for {@code goal}, NaN when every value is NaN. */
  public OptionalDouble best(Goal goal) {
    if (values.isEmpty()) {
      return OptionalDouble.empty();
    }
    double best = Double.NaN;
    for (Intermediate value : values) {
      best = goal.better(best, value.value());
    }
    return OptionalDouble.of(best);
  }

  /** The first value read whose step is {@code step} or later: the one that reached a rung. */
  public Optional<Intermediate> firstReaching(long step) {
    return values.stream().filter(v -> v.step() >= step).findFirst();
  }
}
