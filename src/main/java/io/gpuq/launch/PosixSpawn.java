package io.gpuq.launch;

import com.sun.jna.Library;
import com.sun.jna.Memory;
import com.sun.jna.Native;
import com.sun.jna.NativeLibrary;
import com.sun.jna.Platform;
import com.sun.jna.Pointer;
import io.gpuq.fs.Libc;
import java.io.IOException;
import java.nio.charset.Charset;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Starts a child with one {@code posix_spawn(3)} call through JNA: already in its own session, with
 * stdin from /dev/null, stdout and stderr appended to a file, in a given directory, with exactly
 * the given environment and no other descriptor of this JVM. {@link ProcessBuilder} costs two more
 * execs for the same ({@code jspawnhelper}, then {@code setsid}).
 *
 * <p>The JDK does not know such a child, so {@link #exitOf} reaps it: one blocking {@code
 * waitpid(pid)} per child, never {@code waitpid(-1)}, which would steal the exits of the JDK's own
 * children.
 *
 * <p>Needs glibc 2.34 or later (or a libc with the same extensions): {@code POSIX_SPAWN_SETSID}
 * (2.26), {@code posix_spawn_file_actions_addchdir_np} (2.29) and {@code
 * posix_spawn_file_actions_addclosefrom_np} (2.34). The last is not optional: the JVM opens its
 * files and sockets without {@code O_CLOEXEC}, so without it a worker would inherit them all, the
 * HTTP listening socket included, and keep it bound after gpuq dies.
 */
final class PosixSpawn {

  private static final Logger log = LoggerFactory.getLogger(PosixSpawn.class);

  // <spawn.h>
  private static final short POSIX_SPAWN_SETSIGDEF = 0x04;
  private static final short POSIX_SPAWN_SETSIGMASK = 0x08;
  private static final short POSIX_SPAWN_SETSID = 0x80;

  // <fcntl.h>: the generic Linux values (and arm64's O_NOFOLLOW). Alpha, SPARC, PA-RISC and MIPS
  // differ, hence SUPPORTED_ARCHS.
  private static final int O_RDONLY = Libc.O_RDONLY;
  // A job in shared-account mode could have put a symbolic link or a FIFO where its log goes: the
  // child then fails to start instead of writing elsewhere or blocking (and this thread with it,
  // since posix_spawn waits for the child's exec).
  private static final int LOG_FLAGS =
      Libc.O_WRONLY | Libc.O_CREAT | Libc.O_APPEND | Libc.O_NOFOLLOW | Libc.O_NONBLOCK;
  private static final int LOG_MODE = 0600;

  private static final int EINTR = 4;
  private static final Set<String> SUPPORTED_ARCHS = Set.of("x86-64", "aarch64", "riscv64");

  /**
   * Room for each opaque libc struct. glibc x86_64 needs 80 bytes for a file-actions object, 336
   * for an attribute object and 128 for a sigset_t; other libcs and architectures may need more.
   */
  private static final int OPAQUE_BYTES = 1024;

  private static final List<String> REQUIRED_SYMBOLS =
      List.of(
          "posix_spawn",
          "posix_spawnattr_init",
          "posix_spawnattr_setflags",
          "posix_spawnattr_setsigmask",
          "posix_spawnattr_setsigdefault",
          "posix_spawnattr_destroy",
          "posix_spawn_file_actions_init",
          "posix_spawn_file_actions_addopen",
          "posix_spawn_file_actions_adddup2",
          "posix_spawn_file_actions_addchdir_np",
          "posix_spawn_file_actions_addclosefrom_np",
          "posix_spawn_file_actions_destroy",
          "sigemptyset",
          "sigfillset",
          "waitpid",
          "strerror");

  /** One thread per live child, blocked in waitpid; shared by every launcher of this JVM. */
  private static final ExecutorService REAPERS =
      Executors.newCachedThreadPool(
          new java.util.concurrent.ThreadFactory() {
            private final AtomicInteger count = new AtomicInteger();

            @Override
            public Thread newThread(Runnable task) {
              Thread thread = new Thread(task, "gpuq-reaper-" + count.incrementAndGet());
              thread.setDaemon(true);
              return thread;
            }
          });

  private final LibC libc;
  // What ProcessBuilder uses for argv and the environment (String.getBytes()), so that both
  // mechanisms pass the same bytes.
  private final Charset charset = Charset.defaultCharset();

  private PosixSpawn(LibC libc) {
    this.libc = libc;
  }

  /**
   * Binds libc.
   *
   * @throws UnsupportedOperationException with the reason, where this system lacks something it
   *     needs (not Linux, an architecture with other {@code O_*} values, a libc without one of the
   *     functions: a JNA {@link UnsatisfiedLinkError})
   */
  static PosixSpawn bind() {
    if (!Platform.isLinux() || !SUPPORTED_ARCHS.contains(Platform.ARCH)) {
      throw new UnsupportedOperationException(
          "not Linux on "
              + SUPPORTED_ARCHS
              + " but "
              + System.getProperty("os.name")
              + " on "
              + Platform.ARCH);
    }
    try {
      NativeLibrary c = NativeLibrary.getInstance("c");
      // Interface mappings resolve a function on its first call; look every one up now so that a
      // missing one chooses the fallback instead of failing a launch.
      REQUIRED_SYMBOLS.forEach(c::getFunction);
      return new PosixSpawn(Native.load("c", LibC.class));
    } catch (UnsatisfiedLinkError e) {
      throw new UnsupportedOperationException(
          "libc lacks what posix_spawn needs here (glibc 2.34 or later): " + e.getMessage(), e);
    }
  }

  /** The libc's own version, for the log; empty when it does not say (not glibc). */
  String libcVersion() {
    try {
      return "glibc " + libc.gnu_get_libc_version();
    } catch (UnsatisfiedLinkError e) {
      return "a libc other than glibc";
    }
  }

  /**
   * Starts {@code argv} (its first element is the program's absolute path; no PATH lookup) as the
   * leader of a new session, with its signal mask empty and every signal at its default action.
   *
   * @param environment its whole environment; nothing is inherited
   * @param output the file stdout is appended to (created with mode 0600); stderr goes there too
   * @return the child's pid
   * @throws IOException when the child could not be started, its failed exec included, with the
   *     error's text
   */
  int spawn(List<String> argv, Map<String, String> environment, Path workingDir, Path output)
      throws IOException {
    List<String> envp = new ArrayList<>(environment.size());
    environment.forEach((name, value) -> envp.add(name + "=" + value));
    try (Memory fileActions = new Memory(OPAQUE_BYTES);
        Memory attributes = new Memory(OPAQUE_BYTES);
        Memory signals = new Memory(OPAQUE_BYTES);
        Memory argvArray = cStrings(argv);
        Memory envpArray = cStrings(envp)) {
      check("posix_spawn_file_actions_init", libc.posix_spawn_file_actions_init(fileActions));
      try {
        check("posix_spawnattr_init", libc.posix_spawnattr_init(attributes));
        try {
          addFileActions(fileActions, workingDir, output);
          setAttributes(attributes, signals);
          int[] pid = new int[1];
          check(
              "posix_spawn " + argv.get(0),
              libc.posix_spawn(
                  pid, cString(argv.get(0)), fileActions, attributes, argvArray, envpArray));
          return pid[0];
        } finally {
          libc.posix_spawnattr_destroy(attributes);
        }
      } finally {
        libc.posix_spawn_file_actions_destroy(fileActions);
      }
    }
  }

  /**
   * Completes, on a {@code gpuq-reaper} thread, once child {@code pid} has exited and been reaped,
   * with its exit code the way {@link Process#exitValue()} gives it: 128 + N when signal N killed
   * it. Completes with null when it was not (or no longer) this process's child to reap.
   */
  CompletableFuture<Integer> exitOf(int pid) {
    return CompletableFuture.supplyAsync(() -> awaitExit(pid), REAPERS);
  }

  /** Decodes a wait status; without WUNTRACED or WCONTINUED it is an exit or a death by signal. */
  static int exitCodeOf(int waitStatus) {
    int signal = waitStatus & 0x7f;
    return signal == 0 ? (waitStatus >> 8) & 0xff : 128 + signal;
  }

  private Integer awaitExit(int pid) {
    int[] status = new int[1];
    while (true) {
      if (libc.waitpid(pid, status, 0) == pid) {
        return exitCodeOf(status[0]);
      }
      int errno = Native.getLastError();
      if (errno != EINTR) {
        log.error("cannot reap worker {}: waitpid failed: {}", pid, describe(errno));
        return null;
      }
    }
  }

  private void addFileActions(Pointer fileActions, Path workingDir, Path output)
      throws IOException {
    check(
        "posix_spawn_file_actions_addopen /dev/null",
        libc.posix_spawn_file_actions_addopen(fileActions, 0, cString("/dev/null"), O_RDONLY, 0));
    check(
        "posix_spawn_file_actions_addopen " + output,
        libc.posix_spawn_file_actions_addopen(
            fileActions, 1, cString(output.toAbsolutePath().toString()), LOG_FLAGS, LOG_MODE));
    check(
        "posix_spawn_file_actions_adddup2",
        libc.posix_spawn_file_actions_adddup2(fileActions, 1, 2));
    check(
        "posix_spawn_file_actions_addclosefrom_np",
        libc.posix_spawn_file_actions_addclosefrom_np(fileActions, 3));
    check(
        "posix_spawn_file_actions_addchdir_np " + workingDir,
        libc.posix_spawn_file_actions_addchdir_np(
            fileActions, cString(workingDir.toAbsolutePath().toString())));
  }

  private void setAttributes(Pointer attributes, Pointer signals) throws IOException {
    check(
        "posix_spawnattr_setflags",
        libc.posix_spawnattr_setflags(
            attributes,
            (short) (POSIX_SPAWN_SETSID | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF)));
    // The spawning thread's mask would otherwise be inherited: a JVM thread may block signals.
    libc.sigemptyset(signals);
    check("posix_spawnattr_setsigmask", libc.posix_spawnattr_setsigmask(attributes, signals));
    // Dispositions that survive exec are SIG_IGN ones (gpuq started under nohup, say).
    libc.sigfillset(signals);
    check("posix_spawnattr_setsigdefault", libc.posix_spawnattr_setsigdefault(attributes, signals));
  }

  /** Every posix_spawn function returns an error number instead of setting errno. */
  private void check(String call, int error) throws IOException {
    if (error != 0) {
      throw new IOException(call + ": " + describe(error));
    }
  }

  private String describe(int errno) {
    return libc.strerror(errno) + " (errno " + errno + ")";
  }

  private byte[] cString(String s) {
    return Native.toByteArray(s, charset);
  }

  /** A NULL-terminated {@code char *[]} and its strings, in one block freed at once. */
  private Memory cStrings(List<String> strings) {
    List<byte[]> encoded = new ArrayList<>(strings.size());
    long bytes = 0;
    for (String s : strings) {
      byte[] c = cString(s);
      encoded.add(c);
      bytes += c.length;
    }
    long table = (long) (strings.size() + 1) * Native.POINTER_SIZE;
    Memory block = new Memory(table + bytes);
    long offset = table;
    for (int i = 0; i < encoded.size(); i++) {
      byte[] c = encoded.get(i);
      block.write(offset, c, 0, c.length);
      block.setPointer((long) i * Native.POINTER_SIZE, block.share(offset));
      offset += c.length;
    }
    block.setPointer(table - Native.POINTER_SIZE, null);
    return block;
  }

  interface LibC extends Library {
    int posix_spawn(
        int[] pid,
        byte[] path,
        Pointer fileActions,
        Pointer attributes,
        Pointer argv,
        Pointer envp);

    int posix_spawnattr_init(Pointer attributes);

    int posix_spawnattr_setflags(Pointer attributes, short flags);

    int posix_spawnattr_setsigmask(Pointer attributes, Pointer sigmask);

    int posix_spawnattr_setsigdefault(Pointer attributes, Pointer sigdefault);

    int posix_spawnattr_destroy(Pointer attributes);

    int posix_spawn_file_actions_init(Pointer fileActions);

    int posix_spawn_file_actions_addopen(
        Pointer fileActions, int fd, byte[] path, int flags, int mode);

    int posix_spawn_file_actions_adddup2(Pointer fileActions, int fd, int newFd);

    int posix_spawn_file_actions_addchdir_np(Pointer fileActions, byte[] path);

    int posix_spawn_file_actions_addclosefrom_np(Pointer fileActions, int from);

    int posix_spawn_file_actions_destroy(Pointer fileActions);

    int sigemptyset(Pointer set);

    int sigfillset(Pointer set);

    int waitpid(int pid, int[] status, int options);

    String strerror(int errno);

    String gnu_get_libc_version();
  }
}
