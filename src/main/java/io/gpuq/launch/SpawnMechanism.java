package io.gpuq.launch;

/** How {@link WorkerLauncher} starts a worker's process. */
public enum SpawnMechanism {
  /**
   * One {@code posix_spawn(3)} call straight into the wrapper shell, in a new session (see {@link
   * PosixSpawn}); needs glibc 2.34 or later.
   */
  POSIX_SPAWN,
  /**
   * The JDK's {@link ProcessBuilder}, with {@code setsid} in front for the new session: two more
   * execs per worker ({@code jspawnhelper}, {@code setsid}), but no native binding.
   */
  PROCESS_BUILDER
}
