/**
 * The Spring wiring: every {@code @Configuration}, which builds the features from {@code
 * GpuqProperties} and connects them, and the node's one composition ({@code NodeComposition}: what
 * runs on its own, in which order it starts and stops). The top layer: it may use every package,
 * and none uses it.
 */
package io.gpuq.wiring;
