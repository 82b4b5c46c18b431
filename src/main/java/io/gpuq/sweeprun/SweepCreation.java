package io.gpuq.sweeprun;

/**
 * What a create request came to.
 *
 * @param created false when it repeated an earlier request's Idempotency-Key: nothing was created
 * @param gpuTrials whether its trials use GPUs (which scheduler wake-up they need)
 */
public record SweepCreation(SweepSummary sweep, boolean created, boolean gpuTrials) {}
