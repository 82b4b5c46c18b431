/**
 * Trial concurrency: a sweep's {@code maxConcurrent} ({@link
 * io.gpuq.concurrency.ConcurrencyLimit}), its slots now ({@link io.gpuq.concurrency.TrialSlots})
 * and the one rule of which trials may start within them ({@link io.gpuq.concurrency.TrialLimits}),
 * for the scheduling pass and every store's claim. Plain Java; the stores count the running trials
 * (in SQL: {@code io.gpuq.storage.SweepTable}).
 */
package io.gpuq.concurrency;
