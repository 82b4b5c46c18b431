package io.gpuq.support;

import java.util.List;

/**
 * The cores a test gpuq offers its jobs. Placement counts cores (issue 27), and a test machine may
 * have 2: tests that run many jobs at once would wait for cores they do not use. Test nodes offer
 * {@value #CPUS}, none reserved, unless a test sets the cores itself; a test of placement by cores
 * sets them.
 */
public final class TestCores {

  public static final int CPUS = 64;

  /** As properties, for a test's Spring context. */
  public static final String CPUS_PROPERTY = "gpuq.node.cpus=" + CPUS;

  public static final String NONE_RESERVED_PROPERTY = "gpuq.node.reserved-cpus=0";

  private TestCores() {}

  /** The command-line arguments to add to {@code extraArgs}: none when they set the cores. */
  public static List<String> argumentsBeside(String... extraArgs) {
    boolean setsCores =
        List.of(extraArgs).stream()
            .anyMatch(
                arg ->
                    arg.startsWith("--gpuq.node.cpus=")
                        || arg.startsWith("--gpuq.node.reserved-cpus="));
    return setsCores ? List.of() : List.of("--" + CPUS_PROPERTY, "--" + NONE_RESERVED_PROPERTY);
  }
}
