package io.gpuq.sweep;

import io.gpuq.job.JobState;

/**
 * What one page of a sweep's trials table shows.
 *
 * @param goal the sweep's goal; null when it has no metric (then every trial has no value)
 * @param state only trials in this state; null for all
 * @param after the cursor of the previous page; null for the first
 * @param scope which value {@code metric} and {@code -metric} order by: the last reported, or the
 *     best at any step
 */
public record TrialQuery(
    String sweepId,
    Goal goal,
    TrialOrder order,
    JobState state,
    TrialCursor after,
    int limit,
    BestScope scope) {

  public TrialQuery {
    scope = scope == null ? BestScope.LAST : scope;
  }

  /** Ordered by each trial's last value. */
  public TrialQuery(
      String sweepId, Goal goal, TrialOrder order, JobState state, TrialCursor after, int limit) {
    this(sweepId, goal, order, state, after, limit, BestScope.LAST);
  }
}
