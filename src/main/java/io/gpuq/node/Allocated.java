package io.gpuq.node;

/**
 * What a node's RUNNING jobs were given: the sum of their {@code cpus} and of their {@code
 * memoryBytes} (a job with none counts 0).
 */
public record Allocated(long cpus, long memoryBytes) {

  public static final Allocated NOTHING = new Allocated(0, 0);
}
