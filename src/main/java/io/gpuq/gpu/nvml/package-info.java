/**
 * The NVML backend: NVIDIA's management library through JNA, for devices, memory, utilisation and
 * the processes on each GPU.
 */
package io.gpuq.gpu.nvml;
