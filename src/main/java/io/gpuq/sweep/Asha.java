package io.gpuq.sweep;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * Asynchronous successive halving (Li et al., 2020, "A System for Massively Parallel Hyperparameter
 * Tuning"), as Optuna's {@code SuccessiveHalvingPruner} applies it to trials that run to their end
 * unless stopped ({@code min_early_stopping_rate = 0}, {@code bootstrap_count = 0}).
 *
 * <p>Rung k is at step {@code minSteps × reductionFactor^k}. A trial's value at a rung is the first
 * value it reported at that step or later. When a trial reaches a rung, it is compared with the
 * values that the sweep's trials (any state, itself included) had recorded at that rung by then; it
 * goes on only if its value is among the best {@code ⌊n / reductionFactor⌋} of those n values, or,
 * while n is below the reduction factor, only if it is the best of them: Optuna's rule, since a
 * trial cannot be paused to wait for more to compare with. A NaN value is pruned.
 *
 * <p>"By then" makes the rule pure: a trial is compared only with trials that reached the rung no
 * later than it did (by the time gpuq read their value, then by trial number), so a decision at a
 * rung never changes when later trials arrive, and asking again gives the same answer.
 */
public record Asha(long minSteps, int reductionFactor) implements EarlyStopping {

  public static final long DEFAULT_MIN_STEPS = 1;
  public static final int DEFAULT_REDUCTION_FACTOR = 4;

  public Asha {
    if (minSteps < 1 || reductionFactor < 2) {
      throw new IllegalArgumentException("minSteps is 1 or more, reductionFactor 2 or more");
    }
  }

  @Override
  public boolean shouldPrune(TrialHistory trial, Collection<TrialHistory> sweep, Goal goal) {
    OptionalLong last = trial.lastStep();
    if (last.isEmpty()) {
      return false;
    }
    long rungStep = minSteps;
    while (rungStep <= last.getAsLong()) {
      if (!promoted(trial, sweep, goal, rungStep)) {
        return true;
      }
      if (rungStep > Long.MAX_VALUE / reductionFactor) {
        return false;
      }
      rungStep *= reductionFactor;
    }
    return false;
  }

  /** The step of rung {@code k}. */
  public long rungStep(int k) {
    long step = minSteps;
    for (int i = 0; i < k; i++) {
      step = Math.multiplyExact(step, reductionFactor);
    }
    return step;
  }

  private boolean promoted(
      TrialHistory trial, Collection<TrialHistory> sweep, Goal goal, long rungStep) {
    Recorded own = Recorded.of(trial, rungStep).orElseThrow();
    if (Double.isNaN(own.value())) {
      return false;
    }
    List<Double> competing = new ArrayList<>();
    competing.add(own.value());
    for (TrialHistory other : sweep) {
      if (other.trial() == trial.trial()) {
        continue;
      }
      Recorded.of(other, rungStep)
          .filter(r -> Recorded.ORDER.compare(r, own) < 0 && !Double.isNaN(r.value()))
          .ifPresent(r -> competing.add(r.value()));
    }
    int keep = Math.max(1, competing.size() / reductionFactor);
    competing.sort(goal == Goal.MINIMIZE ? Comparator.naturalOrder() : Comparator.reverseOrder());
    double cutoff = competing.get(keep - 1);
    return !goal.worse(own.value(), cutoff);
  }

  /** A trial's value at a rung, and when it got there. */
  private record Recorded(int trial, double value, Instant at) {

    static final Comparator<Recorded> ORDER =
        Comparator.comparing(Recorded::at).thenComparingInt(Recorded::trial);

    static Optional<Recorded> of(TrialHistory history, long rungStep) {
      return history
          .firstReaching(rungStep)
          .map(v -> new Recorded(history.trial(), v.value(), v.at()));
    }
  }

  @Override
  public String wireName() {
    return "asha";
  }
}
