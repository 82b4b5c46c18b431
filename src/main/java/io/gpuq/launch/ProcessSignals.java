package io.gpuq.launch;

import com.sun.jna.Library;
import com.sun.jna.Native;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Signals for process groups. The JDK can signal one process but not a group, and a worker's
 * children may have left its tree (re-parented to init) while staying in its group.
 */
public final class ProcessSignals {

  public static final int SIGKILL = 9;
  public static final int SIGTERM = 15;
  private static final Logger log = LoggerFactory.getLogger(ProcessSignals.class);
  private static final LibC LIBC = loadLibC();

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

  /** Whether any process of group {@code pgid} is still alive. */
  public static boolean groupAlive(long pgid) {
    return signalGroup(pgid, 0);
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
