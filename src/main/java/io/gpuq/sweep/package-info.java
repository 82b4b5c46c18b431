/**
 * Sweeps without the service around them: the parameter space and its validation, the trials a grid
 * or a random search yields, placeholders in a trial's command, its labels and environment, the
 * early-stopping rules (median, ASHA) and the {@code maxConcurrent} admission rule; reading a
 * trial's metrics file is {@code io.gpuq.reported}'s. Plain Java only: no Spring, JPA or HTTP; the
 * service wires these in.
 */
package io.gpuq.sweep;
