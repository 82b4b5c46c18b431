package io.gpuq.sweep;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;

/**
 * Asynchronous successive halving (Li et al., 2020, "A System for Massively Parallel Hyperparameter
 * Tuning"), exactly as Optuna's {@code SuccessiveHalvingPruner(min_resource=minSteps,
 * reduction_factor=reductionFactor, min_early_stopping_rate=0, bootstrap_count=0)} applies it.
 *
 * <p>Rung k is at step {@code minSteps × reductionFactor^k}. When a value a trial reports raises
 * its highest step to a rung's step or past it, that value is the trial's value at the rung (at
 * every rung it crossed, lowest first). It is compared with the values recorded at that rung by
 * then: the trial goes on only if its value is among the best {@code ⌊n / reductionFactor⌋} of
 * those n values (its own included), or, while n is below the reduction factor, only if it is the
 * best of them: Optuna's rule, since a trial cannot be paused to wait for more to compare with. A
 * NaN value is pruned, and recorded nowhere.
 *
 * <p>A trial has a value at rung k only if it went on at every lower rung: one pruned at rung 1
 * counts at rung 1 (Optuna records the value before it compares), never at rungs 2 and up, even
 * when its process wrote them before it was stopped. Trials of any state count, as in Optuna.
 *
 * <p>"By then" makes the rule pure: values are replayed in the order gpuq read them (by the time of
 * the read, then by trial number, then in the order of the file), so a decision never changes when
 * later trials arrive, and asking again gives the same answer.
 */
public record Asha(long minSteps, int reductionFactor) implements EarlyStopping {

  public static final long DEFAULT_MIN_STEPS = 1;
  public static final int DEFAULT_REDUCTION_FACTOR = 4;

  public Asha {
    if (minSteps < 1 || reductionFactor < 2) {
      throw new IllegalArgumentException("minSteps is 1 or more, reductionFactor 2 or more");
    }
  }

  /**
   * {@inheritDoc}
   *
   * <p>ASHA's decisions are pure, so {@code from} changes nothing but what is skipped: a trial is
   * pruned at the first rung it fails, wherever that is.
   */
  @Override
  public OptionalLong pruneStep(
      TrialHistory trial, Collection<TrialHistory> sweep, Goal goal, int from) {
    List<Reached> reached = new ArrayList<>();
    addReached(trial, reached);
    for (TrialHistory other : sweep) {
      if (other.trial() != trial.trial()) {
        addReached(other, reached);
      }
    }
    reached.sort(Reached.ORDER);
    Set<Integer> pruned = new HashSet<>();
    Map<Integer, Rung> rungs = new HashMap<>();
    for (Reached r : reached) {
      if (pruned.contains(r.trial())) {
        continue;
      }
      boolean goesOn =
          !Double.isNaN(r.value())
              && rungs.computeIfAbsent(r.rung(), k -> new Rung()).record(r.value(), goal);
      if (!goesOn) {
        if (r.trial() == trial.trial()) {
          return OptionalLong.of(r.step());
        }
        pruned.add(r.trial());
      }
    }
    return OptionalLong.empty();
  }

  /** The step of rung {@code k}. */
  public long rungStep(int k) {
    long step = minSteps;
    for (int i = 0; i < k; i++) {
      step = Math.multiplyExact(step, reductionFactor);
    }
    return step;
  }

  /**
   * Each rung a trial's values reach, with the value that reached it, lowest rung first. The value
   * that reaches a rung is the first read at its step or later: every value read before it was
   * below that step, so it raised the trial's highest step, as Optuna's {@code last_step}.
   */
  private void addReached(TrialHistory history, List<Reached> into) {
    long rungStep = minSteps;
    for (int rung = 0; ; rung++) {
      Optional<Intermediate> reaching = history.firstReaching(rungStep);
      if (reaching.isEmpty()) {
        return;
      }
      Intermediate value = reaching.get();
      into.add(new Reached(history.trial(), rung, value.step(), value.value(), value.at()));
      if (rungStep > Long.MAX_VALUE / reductionFactor) {
        return; // no step reaches the next rung
      }
      rungStep *= reductionFactor;
    }
  }

  /**
   * A trial's value reaching a rung, and when gpuq read it. One trial's rungs are reached in the
   * order of their values in its file, so rung orders them within one trial and one read.
   */
  private record Reached(int trial, int rung, long step, double value, Instant at) {

    static final Comparator<Reached> ORDER =
        Comparator.comparing(Reached::at)
            .thenComparingInt(Reached::trial)
            .thenComparingInt(Reached::rung);
  }

  /** The values recorded at one rung so far, sorted, so that a decision counts in O(log n). */
  private final class Rung {
    private double[] sorted = new double[8];
    private int size;

    /** Records {@code value} and says whether it is promoted (Optuna's comparison, ties kept). */
    boolean record(double value, Goal goal) {
      int n = size + 1;
      int keep = Math.max(1, n / reductionFactor);
      int better = goal == Goal.MINIMIZE ? lowerBound(value) : size - upperBound(value);
      int at = lowerBound(value);
      if (size == sorted.length) {
        sorted = Arrays.copyOf(sorted, size * 2);
      }
      System.arraycopy(sorted, at, sorted, at + 1, size - at);
      sorted[at] = value;
      size++;
      return better < keep;
    }

    /** How many values are strictly below {@code value}. */
    private int lowerBound(double value) {
      int low = 0;
      int high = size;
      while (low < high) {
        int middle = (low + high) >>> 1;
        if (sorted[middle] < value) {
          low = middle + 1;
        } else {
          high = middle;
        }
      }
      return low;
    }

    /** How many values are at or below {@code value}. */
    private int upperBound(double value) {
      int low = 0;
      int high = size;
      while (low < high) {
        int middle = (low + high) >>> 1;
        if (sorted[middle] <= value) {
          low = middle + 1;
        } else {
          high = middle;
        }
      }
      return low;
    }
  }

  @Override
  public String wireName() {
    return "asha";
  }
}
