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
 * <p>Only root switches accounts. Its capabilities survive the execs of the wrapper and {@code
 * setpriv}, and the kernel clears them all when {@code setpriv} leaves uid 0 for the job's account.
 * A non-root gpuq could hold {@code CAP_SETUID} only as an ambient capability, which a change
 * between two non-root uids keeps: every job would inherit it, and could become root.
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
    return effectiveUid == 0 && has(effectiveCaps, CAP_SETUID) && has(effectiveCaps, CAP_SETGID);
  }

  /** Capabilities every process gpuq starts would inherit as they are. */
  public boolean hasAmbientCapabilities() {
    return ambientCaps != 0;
  }

  /** The capabilities workers of other accounts need gpuq to have, and that it lacks. */
  public List<String> missingForOtherAccounts() {
    List<String> missing = new ArrayList<>();
    if (!has(effectiveCaps, CAP_SETUID)) {
      missing.add("CAP_SETUID");
    }
    if (!has(effectiveCaps, CAP_SETGID)) {
      missing.add("CAP_SETGID");
    }
    if (!has(effectiveCaps, CAP_KILL)) {
      missing.add("CAP_KILL");
    }
    if (!has(effectiveCaps, CAP_CHOWN)) {
      missing.add("CAP_CHOWN");
    }
    // Each job's work directory is its account's, mode 0700: gpuq enters it to start the job.
    if (!has(effectiveCaps, CAP_DAC_OVERRIDE)) {
      missing.add("CAP_DAC_OVERRIDE");
    }
    return missing;
  }

  private static boolean has(long set, int cap) {
    return (set & (1L << cap)) != 0;
  }
}
