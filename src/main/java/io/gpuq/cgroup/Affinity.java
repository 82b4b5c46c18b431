package io.gpuq.cgroup;

import com.sun.jna.Library;
import com.sun.jna.Native;
import com.sun.jna.NativeLong;
import com.sun.jna.Platform;
import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.BitSet;
import java.util.concurrent.Callable;
import org.slf4j.LoggerFactory;

/**
 * CPU affinity through libc's {@code sched_setaffinity(2)} and {@code sched_getaffinity(2)}: the
 * fallback that binds a worker to its cores where gpuq cannot make cgroups, and gpuq's own mask
 * (the CPUs it may use at all).
 *
 * <p>Unlike a cpuset, an affinity mask binds but does not enforce: the job may widen its own mask
 * again, up to the CPUs its cgroup allows. It only keeps well-behaved jobs apart.
 */
public final class Affinity {

  /** Room for {@link CpuList#MAX_CPUS} CPUs; the kernel wants at least its own nr_cpu_ids bits. */
  private static final int MASK_LONGS = CpuList.MAX_CPUS / Long.SIZE;

  private static final int ESRCH = 3;

  interface C extends Library {
    // A cpu_set_t is an array of unsigned longs, bit n of the set is bit n % 64 of long n / 64:
    // long[] keeps that on either byte order.
    int sched_setaffinity(int pid, NativeLong size, long[] mask);

    int sched_getaffinity(int pid, NativeLong size, long[] mask);

    String strerror(int errno);
  }

  private static volatile C libc;

  private Affinity() {}

  private static C libc() {
    C bound = libc;
    if (bound == null) {
      if (!Platform.isLinux()) {
        throw new UnsupportedOperationException("CPU affinity needs Linux");
      }
      bound = Native.load("c", C.class);
      libc = bound;
    }
    return bound;
  }

  /** The CPUs this JVM may run on: its calling thread's mask, which its threads inherit. */
  public static CpuList ofThisProcess() {
    return ofThread(0);
  }

  /** The mask of thread {@code tid} (a process's pid is its main thread); 0 for the caller. */
  public static CpuList ofThread(int tid) {
    long[] mask = new long[MASK_LONGS];
    if (libc().sched_getaffinity(tid, new NativeLong((long) mask.length * Long.BYTES), mask) != 0) {
      throw new IllegalStateException("sched_getaffinity(" + tid + "): " + lastError());
    }
    return new CpuList(BitSet.valueOf(mask));
  }

  /**
   * Binds thread {@code tid} (0: the caller) to {@code cpus}.
   *
   * @throws IOException with the kernel's reason: EINVAL when none of {@code cpus} is allowed
   *     (outside the cpuset), ESRCH when it has gone, EPERM for another user's thread
   */
  public static void bindThread(int tid, CpuList cpus) throws IOException {
    if (cpus.isEmpty()) {
      throw new IllegalArgumentException("no CPUs to bind to");
    }
    long[] mask = new long[MASK_LONGS];
    long[] set = cpus.cpus().toLongArray();
    System.arraycopy(set, 0, mask, 0, set.length);
    if (libc().sched_setaffinity(tid, new NativeLong((long) mask.length * Long.BYTES), mask) != 0) {
      throw new IOException("sched_setaffinity(" + tid + ", " + cpus + "): " + lastError());
    }
  }

  /**
   * Binds every thread process {@code pid} has now. Threads it starts meanwhile inherit the mask of
   * the thread that starts them, so a process bound before it starts threads is bound whole: see
   * {@link #spawnBound} for the way launch uses it.
   */
  public static void bindProcess(Path proc, long pid, CpuList cpus) throws IOException {
    bindThread(Math.toIntExact(pid), cpus);
    try (DirectoryStream<Path> tasks = Files.newDirectoryStream(proc.resolve(pid + "/task"))) {
      for (Path task : tasks) {
        int tid = Integer.parseInt(task.getFileName().toString());
        if (tid != pid) {
          try {
            bindThread(tid, cpus);
          } catch (IOException gone) {
            if (!gone.getMessage().contains("errno " + ESRCH + ")")) {
              throw gone;
            }
          }
        }
      }
    }
  }

  /**
   * Runs {@code spawn} on the calling thread bound to {@code cpus}, then restores the thread's
   * mask: a child the action starts (posix_spawn, fork) inherits the mask at birth, before it runs
   * any code of its own, so no thread of it is ever unbound.
   */
  public static <T> T spawnBound(CpuList cpus, Callable<T> spawn) throws Exception {
    CpuList before = ofThread(0);
    bindThread(0, cpus);
    try {
      return spawn.call();
    } finally {
      try {
        bindThread(0, before);
      } catch (IOException | RuntimeException e) {
        // Not the spawn's failure: its child runs, and must be watched as one. The launching
        // thread stays bound to the child's cores, which costs only how it is scheduled.
        LoggerFactory.getLogger(Affinity.class)
            .warn("cannot restore the launching thread's CPUs: {}", e.toString());
      }
    }
  }

  private static String lastError() {
    int errno = Native.getLastError();
    return libc().strerror(errno) + " (errno " + errno + ")";
  }
}
