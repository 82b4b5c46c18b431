/**
 * Prometheus meters through Micrometer: job states, scheduler outcomes, GPU and host use per job,
 * guard actions and storage. Reads the services and the domain; only the wiring uses it.
 */
package io.gpuq.meters;
