package io.gpuq.sweep;

/** The reported value that ranks a sweep's trials, and which way is better. */
public record Metric(String name, Goal goal) {}
