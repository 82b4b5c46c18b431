package io.gpuq.sweep;

/**
 * A sweep's best trial in a {@link BestScope}.
 *
 * @param parametersJson its parameters, a JSON object
 * @param value the value that made it best: its final value ({@link BestScope#LAST}), or its best
 *     at any step ({@link BestScope#ALL})
 * @param step the step it last reported, or null
 */
public record BestTrial(String jobId, int trial, String parametersJson, double value, Long step) {}
