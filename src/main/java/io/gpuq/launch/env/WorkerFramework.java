package io.gpuq.launch.env;

import java.util.Arrays;
import java.util.Locale;
import java.util.Optional;

/**
 * The framework a worker declares; it picks the memory settings gpuq writes into its environment.
 * Mirrors the job's {@code framework} field ({@code jax | pytorch | tensorflow | generic}).
 */
public enum WorkerFramework {
  JAX,
  PYTORCH,
  TENSORFLOW,
  GENERIC;

  /** The name used in the API and in job requests, e.g. {@code pytorch}. */
  public String wireName() {
    return name().toLowerCase(Locale.ROOT);
  }

  public static Optional<WorkerFramework> fromWireName(String name) {
    return Arrays.stream(values()).filter(f -> f.wireName().equals(name)).findFirst();
  }
}
