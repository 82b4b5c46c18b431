package io.gpuq.sweep;

import java.util.Collection;

/**
 * A rule that stops (prunes) a running trial whose intermediate values are not promising compared
 * with the sweep's other trials. Rules are pure: the same histories give the same decision, so gpuq
 * may ask again at every poll, and after a restart.
 */
public sealed interface EarlyStopping permits MedianStopping, Asha {

  /**
   * Whether the running {@code trial} should be pruned now.
   *
   * @param sweep every trial of the sweep, in any state; may hold {@code trial} itself
   */
  boolean shouldPrune(TrialHistory trial, Collection<TrialHistory> sweep, Goal goal);

  String wireName();
}
