package io.gpuq.sweep;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.OptionalLong;

/**
 * What the early-stopping rules know of one trial: its number, whether it completed (ended {@code
 * SUCCEEDED}), and its intermediate values of the sweep's metric in the order gpuq read them. A
 * step reported twice keeps its first value, as Optuna's {@code trial.report} does.
 *
 * <p>An immutable value, but a class rather than a record: it keeps an index by step, because the
 * median rule looks up one step in every completed trial at every poll.
 */
public final class TrialHistory {

  private final int trial;
  private final boolean completed;
  private final List<Intermediate> values;
  private final Map<Long, Intermediate> byStep;
  private final long lastStep;

  /** Whether steps rise with every value read, as a training loop reports them. */
  private final boolean rising;

  public TrialHistory(int trial, boolean completed, List<Intermediate> values) {
    Map<Long, Intermediate> index = new HashMap<>();
    List<Intermediate> firstPerStep = new ArrayList<>(values.size());
    long last = Long.MIN_VALUE;
    boolean rising = true;
    for (Intermediate value : values) {
      if (index.putIfAbsent(value.step(), value) == null) {
        firstPerStep.add(value);
        rising &= value.step() > last;
        last = Math.max(last, value.step());
      }
    }
    this.rising = rising;
    this.trial = trial;
    this.completed = completed;
    this.values = Collections.unmodifiableList(firstPerStep);
    this.byStep = index;
    this.lastStep = last;
  }

  public int trial() {
    return trial;
  }

  public boolean completed() {
    return completed;
  }

  /** One value per step, in the order gpuq read them. */
  public List<Intermediate> values() {
    return values;
  }

  /** The highest step reported (Optuna's {@code last_step}), if any. */
  public OptionalLong lastStep() {
    return values.isEmpty() ? OptionalLong.empty() : OptionalLong.of(lastStep);
  }

  /** The value reported at exactly {@code step}. */
  public OptionalDouble valueAt(long step) {
    Intermediate value = byStep.get(step);
    return value == null ? OptionalDouble.empty() : OptionalDouble.of(value.value());
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
    if (values.isEmpty() || lastStep < step) {
      return Optional.empty();
    }
    if (!rising) {
      return values.stream().filter(v -> v.step() >= step).findFirst();
    }
    // Rising steps: the first value read at or after the step is the one at the lowest such step.
    int low = 0;
    int high = values.size() - 1;
    while (low < high) {
      int middle = (low + high) >>> 1;
      if (values.get(middle).step() >= step) {
        high = middle;
      } else {
        low = middle + 1;
      }
    }
    return Optional.of(values.get(low));
  }

  @Override
  public boolean equals(Object other) {
    return other instanceof TrialHistory h
        && trial == h.trial
        && completed == h.completed
        && values.equals(h.values);
  }

  @Override
  public int hashCode() {
    return Objects.hash(trial, completed, values);
  }

  @Override
  public String toString() {
    return "TrialHistory[trial=" + trial + ", completed=" + completed + ", values=" + values + "]";
  }
}
