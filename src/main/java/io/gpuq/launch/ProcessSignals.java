package io.gpuq.launch;

import com.sun.jna.Library;
import com.sun.jna.Native;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Signals for process groups and sessions. The JDK can signal one process but not a group, and a
 * worker's children may have left its tree (re-parented to init) while staying in its group.
 */
public final class ProcessSignals {

  public static final int SIGKILL = 9;
  public static final int SIGTERM = 15;
  private static final Logger log = LoggerFactory.getLogger(ProcessSignals.class);
  private static final LibC LIBC = loadLibC();
  private static final Path PROC = Path.of("/proc");

  private ProcessSignals() {}

  /** Sends {@code signal} to every process of group {@code pgid}; false if the group is gone. */
  public static boolean signalGroup(long pgid, int signal) {
    if (LIBC == null || pgid <= 1) {
      return false;
    }
    return LIBC.kill((int) -pgid, signal) == 0;
  }

  /** Sends {@code signal} to process {@code pid}; false if it is gone (or not gpuq's to signal). */
  public static boolean signal(long pid, int signal) {
    if (LIBC == null || pid <= 1) {
      return false;
    }
    return LIBC.kill((int) pid, signal) == 0;
  }

  /**
   * Whether any process of group {@code pgid} still runs. A zombie does not: it holds nothing but
   * its process table entry, which only its parent's wait removes, or init's for an orphan, though
   * {@code kill(-pgid, 0)} still finds it. Waiting for that kept each ended worker's place up to 2
   * s where init reaps on a timer (issue 34: another owner's {@code true} waited as long to start).
   */
  public static boolean groupAlive(long pgid) {
    return signalGroup(pgid, 0) && anyRunningInGroup(pgid);
  }

  /** Whether {@code /proc} lists a process of group {@code pgid} that is not a zombie. */
  private static boolean anyRunningInGroup(long pgid) {
    try (DirectoryStream<Path> entries = Files.newDirectoryStream(PROC)) {
      for (Path entry : entries) {
        String name = entry.getFileName().toString();
        if (!name.isEmpty() && Character.isDigit(name.charAt(0)) && idsOf(entry)[0] == pgid) {
          return true;
        }
      }
      return false;
    } catch (IOException | UncheckedIOException e) {
      // Cannot tell: as kill(2) says.
      return true;
    }
  }

  /**
   * Sends {@code signal} to every process of session {@code sid}, as {@code /proc} lists them now:
   * a worker's children that left its process group (setpgid) stay in its session unless they make
   * one of their own.
   *
   * @return how many processes of the session were found
   */
  public static int signalSession(long sid, int signal) {
    if (LIBC == null || sid <= 1) {
      // Nothing it finds could be signalled: a caller waiting for it to find none would wait on.
      return 0;
    }
    int found = 0;
    try (DirectoryStream<Path> entries = Files.newDirectoryStream(PROC)) {
      for (Path entry : entries) {
        String name = entry.getFileName().toString();
        if (name.isEmpty() || !Character.isDigit(name.charAt(0))) {
          continue;
        }
        long pid;
        try {
          pid = Long.parseLong(name);
        } catch (NumberFormatException notAProcess) {
          continue;
        }
        if (idsOf(entry)[1] == sid) {
          found++;
          signal(pid, signal);
        }
      }
    } catch (IOException | UncheckedIOException e) {
      log.warn("cannot list the processes of session {}: {}", sid, e.toString());
    }
    return found;
  }

  private static final long[] GONE = {-1, -1};

  /**
   * The process group and session of a {@code /proc/PID} directory's process; -1 and -1 when it is
   * gone or a zombie.
   */
  private static long[] idsOf(Path procDir) {
    String stat;
    try {
      stat = Files.readString(procDir.resolve("stat"), StandardCharsets.US_ASCII);
    } catch (IOException | UncheckedIOException gone) {
      return GONE;
    }
    // After the command's closing parenthesis: state, ppid, pgrp, session.
    int end = stat.lastIndexOf(')');
    if (end < 0) {
      return GONE;
    }
    String[] fields = stat.substring(end + 1).strip().split(" ", 5);
    if (fields.length < 4 || fields[0].equals("Z") || fields[0].equals("X")) {
      // A zombie no longer runs: only its parent's wait removes it.
      return GONE;
    }
    try {
      return new long[] {Long.parseLong(fields[2]), Long.parseLong(fields[3])};
    } catch (NumberFormatException e) {
      return GONE;
    }
  }

  private static LibC loadLibC() {
    try {
      return Native.load("c", LibC.class);
    } catch (UnsatisfiedLinkError | RuntimeException e) {
      log.warn(
          "cannot load libc through JNA ({}); stopping a worker signals its process tree but not"
              + " its process group",
          e.getMessage());
      return null;
    }
  }

  interface LibC extends Library {
    int kill(int pid, int signal);
  }
}
