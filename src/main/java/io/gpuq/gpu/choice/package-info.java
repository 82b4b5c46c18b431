/**
 * Picks and opens the GPU backend the settings ask for: NVML ({@code gpu.nvml}) or the emulation
 * ({@code gpu.emulated}). It sits below both and below {@code gpu}, so that {@code gpu} never
 * imports its own children.
 */
package io.gpuq.gpu.choice;
