package io.gpuq.sweep;

import io.gpuq.job.JobState;

/**
 * One row of a sweep's trials table.
 *
 * @param parametersJson the trial's parameters, a JSON object
 * @param value the last value of the sweep's metric it reported, or null
 * @param bestValue its best value of the metric by the sweep's goal, or null
 * @param step the step it last reported, or null
 */
public record TrialRow(
    String jobId,
    int trial,
    String parametersJson,
    JobState state,
    Double value,
    Double bestValue,
    Long step) {}
