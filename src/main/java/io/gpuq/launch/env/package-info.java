/**
 * A worker's environment: the variables each framework gets for its GPUs and budget ({@code
 * docs/worker-environment.md}), its account's identity, and the Python hook that applies torch and
 * tensorflow limits. Plain Java.
 */
package io.gpuq.launch.env;
