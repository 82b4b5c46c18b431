package io.gpuq.job;

import java.util.Arrays;
import java.util.Locale;
import java.util.Optional;
import java.util.stream.Collectors;

/**
 * The signals a job may ask for before it is stopped (issue 35): for a preemption ({@code
 * preemptSignal}) or as a warning before its timeout ({@code timeoutSignal}). Their numbers are
 * Linux's; SIGKILL, which no program can catch, is never one of them.
 */
public enum StopSignal {
  TERM(15),
  USR1(10),
  USR2(12),
  INT(2);

  private final int number;

  StopSignal(int number) {
    this.number = number;
  }

  /** Its number on Linux. */
  public int number() {
    return number;
  }

  /** The signal a name such as {@code TERM} or {@code SIGTERM} (any case) stands for. */
  public static Optional<StopSignal> named(String name) {
    if (name == null) {
      return Optional.empty();
    }
    String upper = name.trim().toUpperCase(Locale.ROOT);
    String bare = upper.startsWith("SIG") ? upper.substring(3) : upper;
    return Arrays.stream(values()).filter(s -> s.name().equals(bare)).findFirst();
  }

  /** The allowed names, for an error message: "TERM, USR1, USR2 or INT". */
  public static String allowed() {
    String all = Arrays.stream(values()).map(Enum::name).collect(Collectors.joining(", "));
    int last = all.lastIndexOf(", ");
    return all.substring(0, last) + " or " + all.substring(last + 2);
  }
}
