package io.gpuq.node;

import io.gpuq.text.Cpus;

/**
 * What a node's RUNNING jobs were given: the sum of their {@code cpus} and of their {@code
 * memoryBytes} (a job with none counts 0).
 */
public record Allocated(Cpus cpus, long memoryBytes) {

  public static final Allocated NOTHING = new Allocated(Cpus.ZERO, 0);
}
