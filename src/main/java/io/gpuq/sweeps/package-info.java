/**
 * Sweeps as gpuq serves them: {@link io.gpuq.sweeps.SweepService} (rights, idempotent retries, each
 * trial's job validated and admitted as a submitted job), the store in the shared database ({@link
 * io.gpuq.storage.JdbcSweepStore}, trials written with their sweep in one transaction: COPY on
 * PostgreSQL, multi-row inserts on H2) and the duty that stamps a done sweep's end. The rules
 * themselves are the framework-free {@code io.gpuq.sweep}; this is its service edge, a layer above
 * it.
 */
package io.gpuq.sweeps;
