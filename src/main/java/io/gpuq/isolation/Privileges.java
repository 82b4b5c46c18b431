package io.gpuq.isolation;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * What gpuq's own process may do, from {@code /proc/self/status}: its effective uid and its
 * capabilities.
 *
 * <p>Workers are started through {@code /bin/sh} and {@code setpriv}: a root process keeps its
 * capabilities across those execs, a non-root one only its ambient capabilities. So root needs
 * {@code CAP_SETUID} and {@code CAP_SETGID} in its effective set, anyone else in its ambient set.
 */
public record Privileges(int effectiveUid, int effectiveGid, long effectiveCaps, long ambientCaps) {

  public static final int CAP_CHOWN = 0;
  public static final int CAP_DAC_OVERRIDE = 1;
  public static final int CAP_KILL = 5;
  public static final int CAP_SETGID = 6;
  public static final int CAP_SETUID = 7;

  /** Privileges of a process whose group id equals its user id, as most accounts' do. */
  public Privileges(int effectiveUid, long effectiveCaps, long ambientCaps) {
    this(effectiveUid, effectiveUid, effectiveCaps, ambientCaps);
  }

  /** This process's privileges. */
  public static Privileges current() {
    try {
      return parse(Files.readString(Path.of("/proc/self/status")));
    } catch (IOException e) {
      throw new IllegalStateException("cannot read /proc/self/status: " + e.getMessage(), e);
    }
  }

  /**
   * Reads the {@code Uid}, {@code Gid}, {@code CapEff} and {@code CapAmb} lines of a status file.
   */
  public static Privileges parse(String status) {
    int euid = -1;
    int egid = -1;
    long effective = 0;
    long ambient = 0;
    for (String line : status.split("\n")) {
      String[] fields = line.trim().split("\\s+");
      switch (fields[0]) {
        case "Uid:" -> euid = Integer.parseInt(fields[2]);
        case "Gid:" -> egid = Integer.parseInt(fields[2]);
        case "CapEff:" -> effective = Long.parseUnsignedLong(fields[1], 16);
        case "CapAmb:" -> ambient = Long.parseUnsignedLong(fields[1], 16);
        default -> {}
      }
    }
    if (euid < 0) {
      throw new IllegalArgumentException("no Uid line in the process status");
    }
    return new Privileges(euid, egid < 0 ? euid : egid, effective, ambient);
  }

  /** Whether the workers gpuq starts may drop to another account. */
  public boolean canSwitchAccounts() {
    return inherited(CAP_SETUID) && inherited(CAP_SETGID);
  }

  /** The capabilities workers of other accounts need gpuq to have, and that it lacks. */
  public List<String> missingForOtherAccounts() {
    List<String> missing = new ArrayList<>();
    if (!inherited(CAP_SETUID)) {
      missing.add("CAP_SETUID");
    }
    if (!inherited(CAP_SETGID)) {
      missing.add("CAP_SETGID");
    }
    // gpuq's own JVM signals and chowns; these need not survive exec.
    if (!has(effectiveCaps, CAP_KILL)) {
      missing.add("CAP_KILL");
    }
    if (!has(effectiveCaps, CAP_CHOWN)) {
      missing.add("CAP_CHOWN");
    }
    return missing;
  }

  /** Whether gpuq can read and clean up inside directories its jobs' accounts own. */
  public boolean canOverrideFilePermissions() {
    return has(effectiveCaps, CAP_DAC_OVERRIDE);
  }

  private boolean inherited(int cap) {
    return effectiveUid == 0 ? has(effectiveCaps, cap) : has(ambientCaps, cap);
  }

  private static boolean has(long set, int cap) {
    return (set & (1L << cap)) != 0;
  }
}
