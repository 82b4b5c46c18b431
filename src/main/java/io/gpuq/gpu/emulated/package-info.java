/**
 * The emulated GPU backend: GPUs of a configured size whose "memory used" is the resident memory of
 * each worker's process tree, so that gpuq runs, and is tested, on machines without a GPU.
 */
package io.gpuq.gpu.emulated;
