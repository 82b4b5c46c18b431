package io.gpuq.sweep;

import java.util.Collection;
import java.util.OptionalLong;

/**
 * A rule that stops (prunes) a running trial whose intermediate values are not promising compared
 * with the sweep's other trials. Each value a trial reports is judged in the order gpuq read it, as
 * Optuna judges a {@code trial.report} followed by {@code trial.should_prune()}: a poll that brings
 * steps 2, 3 and 4 judges step 2, then 3, then 4, and stops at the first that prunes.
 */
public sealed interface EarlyStopping permits MedianStopping, Asha {

  /**
   * The step at which the rule prunes the running {@code trial}, judging its values from index
   * {@code from} of {@link TrialHistory#values()} on (those before were judged already and went
   * on); empty when it goes on. The step is Optuna's {@code last_step} at that value: the highest
   * step reported so far.
   *
   * @param sweep every trial of the sweep, in any state; may hold {@code trial} itself
   */
  OptionalLong pruneStep(TrialHistory trial, Collection<TrialHistory> sweep, Goal goal, int from);

  /** Whether the rule prunes {@code trial} at any of its values. */
  default boolean shouldPrune(TrialHistory trial, Collection<TrialHistory> sweep, Goal goal) {
    return pruneStep(trial, sweep, goal, 0).isPresent();
  }

  String wireName();
}
