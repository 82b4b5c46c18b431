package io.gpuq.job;

import java.util.Optional;

/** The ML framework a job uses; it picks the memory settings written into its environment. */
public enum Framework implements WireNamed {
  JAX,
  PYTORCH,
  TENSORFLOW,
  GENERIC;

  public static Optional<Framework> fromWireName(String name) {
    return WireNamed.fromWire(Framework.class, name);
  }
}
