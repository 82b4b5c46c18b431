/**
 * Configuration input: {@code GpuqProperties}, everything a user may set under {@code gpuq.*}, with
 * the documented defaults. Read by the wiring and the edges; the features below take plain values,
 * never the properties.
 */
package io.gpuq.config;
