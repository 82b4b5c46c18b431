/**
 * Running sweeps as gpuq serves them: creating one ({@link io.gpuq.sweeprun.SweepService}: rights,
 * idempotent retries, each trial's job validated and admitted as a submitted job), cancelling it,
 * and completing it (the duty that stamps a done sweep's end). Its trials are stored in the shared
 * database through the {@link io.gpuq.sweep.SweepStore} port (COPY on PostgreSQL, multi-row inserts
 * on H2). The rules themselves are the framework-free {@code io.gpuq.sweep}; this is its service
 * edge, a layer above it.
 */
package io.gpuq.sweeprun;
