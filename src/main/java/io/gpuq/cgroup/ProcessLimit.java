package io.gpuq.cgroup;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.Optional;
import java.util.OptionalInt;

/**
 * {@code gpuq.worker.max-processes} as this kernel allows it: never above {@code pid_max}, the
 * number of PIDs the whole host has, or one job could take them all.
 *
 * @param perWorker the pids.max each worker's group gets
 * @param lowered why it is below what was configured; empty when it is not
 */
public record ProcessLimit(int perWorker, Optional<String> lowered) {

  /** Fewer could not run a worker's wrapper, its program and a helper or two. */
  public static final int MIN = 8;

  public ProcessLimit {
    if (perWorker < MIN) {
      throw new IllegalArgumentException(perWorker + " is below " + MIN);
    }
  }

  /**
   * @throws IllegalArgumentException when {@code configured} is below {@link #MIN}
   */
  public static ProcessLimit decide(int configured, OptionalInt pidMax) {
    if (configured < MIN) {
      throw new IllegalArgumentException(
          "gpuq.worker.max-processes="
              + configured
              + " is below "
              + MIN
              + ": a worker's wrapper and program alone need a few");
    }
    if (pidMax.isPresent() && configured > pidMax.getAsInt()) {
      return new ProcessLimit(
          Math.max(MIN, pidMax.getAsInt()),
          Optional.of(
              "gpuq.worker.max-processes="
                  + configured
                  + " is above the kernel's pid_max ("
                  + pidMax.getAsInt()
                  + "), the PIDs of the whole host: each worker may hold "
                  + pidMax.getAsInt()));
    }
    return new ProcessLimit(configured, Optional.empty());
  }

  /**
   * The kernel's {@code pid_max}; empty where it cannot be read. In one read: a sysctl file read
   * from an offset other than 0 ends there, and {@code Files.readString} first reads one byte alone
   * (it read "3" of 32768).
   */
  public static OptionalInt pidMax(HostPaths paths) {
    try (InputStream in = Files.newInputStream(paths.proc().resolve("sys/kernel/pid_max"))) {
      return OptionalInt.of(
          Integer.parseInt(new String(in.readNBytes(64), StandardCharsets.US_ASCII).strip()));
    } catch (IOException | RuntimeException e) {
      return OptionalInt.empty();
    }
  }
}
