package io.gpuq.job;

import java.util.Arrays;
import java.util.Locale;
import java.util.Optional;

/** The ML framework a job uses; it picks the memory settings written into its environment. */
public enum Framework {
  JAX,
  PYTORCH,
  TENSORFLOW,
  GENERIC;

  public String wireName() {
    return name().toLowerCase(Locale.ROOT);
  }

  public static Optional<Framework> fromWireName(String name) {
    return Arrays.stream(values()).filter(f -> f.wireName().equals(name)).findFirst();
  }
}
