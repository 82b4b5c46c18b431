package io.gpuq.sweep;

import io.gpuq.job.JobState;

/**
 * What one page of a sweep's trials table shows.
 *
 * @param goal the sweep's goal; null when it has no metric (then every trial has no value)
 * @param state only trials in this state; null for all
 * @param after the cursor of the previous page; null for the first
 */
public record TrialQuery(
    String sweepId, Goal goal, TrialOrder order, JobState state, TrialCursor after, int limit) {}
