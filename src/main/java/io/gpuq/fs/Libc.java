package io.gpuq.fs;

import com.sun.jna.Library;
import com.sun.jna.Native;
import com.sun.jna.Platform;

/**
 * The few libc calls that Java's file API lacks: {@code open(2)} with any flags, umask, and {@code
 * flock(2)} (Java's own file locks are fcntl(2) locks, which shell tools do not see).
 */
public final class Libc {

  // <fcntl.h>. O_NOFOLLOW differs between the generic Linux ABI (x86-64, riscv64) and arm64 and
  // powerpc; on other architectures gpuq refuses to guess (a wrong bit could mean O_DIRECT).
  public static final int O_RDONLY = 0;
  public static final int O_WRONLY = 01;
  public static final int O_CREAT = 0100;
  public static final int O_APPEND = 02000;
  public static final int O_NONBLOCK = 04000;
  public static final int O_CLOEXEC = 02000000;
  public static final int O_NOFOLLOW = noFollow(Platform.ARCH);

  // <sys/file.h>
  static final int LOCK_SH = 1;

  static final int ENOENT = 2;
  static final int ENXIO = 6;
  static final int EISDIR = 21;
  static final int ELOOP = 40;

  interface C extends Library {
    int open(String path, int flags, int mode);

    int close(int fd);

    int umask(int mask);

    int flock(int fd, int operation);

    String strerror(int errno);
  }

  static final C C = Native.load("c", C.class);

  private Libc() {}

  private static int noFollow(String arch) {
    return switch (arch) {
      case "x86-64", "riscv64" -> 0400000;
      case "aarch64", "ppc64le", "ppc64" -> 0100000;
      default ->
          throw new UnsupportedOperationException(
              "gpuq does not know O_NOFOLLOW on " + arch + " (x86-64, aarch64, riscv64, ppc64le)");
    };
  }
}
