package io.gpuq.startup;

/**
 * Ends gpuq's JVM at once on an {@link OutOfMemoryError}, the in-process half of {@code
 * -XX:+ExitOnOutOfMemoryError} (which every shipped start command carries).
 *
 * <p>Why: after an {@code OutOfMemoryError} any thread may have died half-way through its work,
 * H2's writer among them. A JVM that goes on then writes the database from a broken state, and a
 * restart found the file corrupted (issue 24). Halting is a crash like {@code kill -9}, which H2
 * survives: every acknowledged commit is already on disk ({@code WRITE_DELAY=0}). The JVM flag
 * covers every error the JVM throws itself; this covers those that code throws ({@code Direct
 * buffer memory}, H2's {@code Capacity: ...}) and JVMs started without the flag, wherever gpuq
 * catches errors to survive them (its loops and duties) and in threads that die of one.
 */
public final class OutOfMemoryExit {

  /** The exit status of {@code -XX:+ExitOnOutOfMemoryError}, so that both read the same. */
  public static final int EXIT_STATUS = 3;

  private OutOfMemoryExit() {}

  /** Halts the JVM if {@code thrown} is, or was caused by, an {@link OutOfMemoryError}. */
  public static void haltIfOutOfMemory(Throwable thrown) {
    if (isOutOfMemory(thrown)) {
      halt(thrown);
    }
  }

  /** Whether {@code thrown} or one of its causes is an {@link OutOfMemoryError}. */
  public static boolean isOutOfMemory(Throwable thrown) {
    return outOfMemory(thrown) != null;
  }

  private static OutOfMemoryError outOfMemory(Throwable thrown) {
    // Bounded: a cause chain may loop.
    Throwable t = thrown;
    for (int depth = 0; t != null && depth < 32; depth++, t = t.getCause()) {
      if (t instanceof OutOfMemoryError error) {
        return error;
      }
    }
    return null;
  }

  /**
   * Makes every thread that dies of an {@link OutOfMemoryError} halt the JVM; other uncaught errors
   * go on to the handler that was there before.
   */
  public static void installAsDefaultHandler() {
    Thread.UncaughtExceptionHandler before = Thread.getDefaultUncaughtExceptionHandler();
    Thread.setDefaultUncaughtExceptionHandler(
        (thread, thrown) -> {
          haltIfOutOfMemory(thrown);
          if (before != null) {
            before.uncaughtException(thread, thrown);
          } else {
            thread.getThreadGroup().uncaughtException(thread, thrown);
          }
        });
  }

  private static void halt(Throwable thrown) {
    try {
      // As the JVM's own flag says it; no logging framework: it may need memory that is not there.
      System.err.println(
          "Terminating due to java.lang.OutOfMemoryError: "
              + outOfMemory(thrown).getMessage()
              + " (gpuq stops at once so as not to write its database from a broken state)");
      System.err.flush();
    } catch (Throwable ignored) {
      // Halting matters more than saying so.
    }
    Runtime.getRuntime().halt(EXIT_STATUS);
  }
}
