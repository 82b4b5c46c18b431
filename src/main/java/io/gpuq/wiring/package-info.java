/**
 * The Spring wiring: every {@code @Configuration}, which builds the features from {@code
 * GpuqProperties} and connects them. The top layer: it may use every package, and none uses it.
 */
package io.gpuq.wiring;
