package io.gpuq.sweep;

/**
 * The trial with the best value of the sweep's metric so far.
 *
 * @param parametersJson its parameters, a JSON object
 * @param value its best value of the metric
 * @param step the step it last reported, or null
 */
public record BestTrial(String jobId, int trial, String parametersJson, double value, Long step) {}
