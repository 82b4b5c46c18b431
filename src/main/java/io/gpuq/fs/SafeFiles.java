package io.gpuq.fs;

import com.sun.jna.Native;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.time.Instant;
import java.util.Arrays;
import java.util.Optional;
import java.util.Set;

/**
 * Opens files a job could have replaced (its log, exit and process files in shared-account mode,
 * its metrics) the only way that cannot be turned against gpuq: {@code O_NOFOLLOW}, so a symbolic
 * link to {@code /dev/zero} or to gpuq's database is refused; {@code O_NONBLOCK}, so a FIFO cannot
 * hold a gpuq thread forever in {@code open(2)}; then checked to be a regular file on the opened
 * descriptor itself, so nothing can be swapped in between the check and the read. Reads are bounded
 * by the caller.
 *
 * <p>The checked descriptor is reopened through {@code /proc/self/fd}, which names that very inode,
 * to hand the caller an ordinary {@link FileChannel}.
 */
public final class SafeFiles {

  // <sys/stat.h>
  private static final int S_IFMT = 0170000;
  private static final int S_IFREG = 0100000;

  private SafeFiles() {}

  /**
   * Opens a regular file for reading.
   *
   * @throws NoSuchFileException when nothing is there
   * @throws NotARegularFileException when something other than a regular file is there
   */
  public static FileChannel openForReading(Path path) throws IOException {
    return openChannel(path, Libc.O_RDONLY, 0, Set.of(StandardOpenOption.READ));
  }

  /** What is read from a safely opened file. */
  @FunctionalInterface
  public interface WithChannel<T> {
    T apply(FileChannel channel) throws IOException;
  }

  /**
   * Opens a regular file for reading as {@link #openForReading} does, and reads it with a shared
   * {@code flock(2)} held, which a writer that rearranges the file (a job's log keeper cutting it)
   * takes exclusively: {@code read} sees the file either before or after such a change, never in
   * between. Waits while the writer holds it; {@code read} should be short.
   *
   * @throws NoSuchFileException when nothing is there
   * @throws NotARegularFileException when something other than a regular file is there
   */
  public static <T> T readLocked(Path path, WithChannel<T> read) throws IOException {
    int fd = open(path, Libc.O_RDONLY, 0);
    try {
      // Interrupted by a signal, it is tried again; where it cannot be had at all (a file system
      // without locks), the file is read without it.
      int tries = 0;
      while (Libc.C.flock(fd, Libc.LOCK_SH) != 0 && ++tries < 3) {
        // again
      }
      try (FileChannel channel = reopen(path, fd, Set.of(StandardOpenOption.READ))) {
        return read.apply(channel);
      }
    } finally {
      // Releases the lock with the descriptor.
      Libc.C.close(fd);
    }
  }

  /**
   * Opens a file for appending, creating it with mode 0600 if it is missing.
   *
   * @throws NotARegularFileException when something other than a regular file is there
   */
  public static FileChannel openForAppending(Path path) throws IOException {
    return openChannel(
        path,
        Libc.O_WRONLY | Libc.O_APPEND | Libc.O_CREAT,
        0600,
        Set.of(StandardOpenOption.WRITE, StandardOpenOption.APPEND));
  }

  /** Opens {@code path} checked, and hands back a channel on the same inode; its own fd closed. */
  private static FileChannel openChannel(
      Path path, int flags, int mode, Set<StandardOpenOption> options) throws IOException {
    int fd = open(path, flags, mode);
    try {
      return reopen(path, fd, options);
    } finally {
      Libc.C.close(fd);
    }
  }

  /** What is done with a safely opened file, named by its descriptor. */
  @FunctionalInterface
  public interface WithOpened<T> {
    T apply(Path opened) throws IOException;
  }

  /**
   * Opens a file for appending as {@link #openForAppending} does and hands {@code use} its {@code
   * /proc/self/fd} name while it is open: for code that insists on opening a file by name, such as
   * {@link ProcessBuilder}'s redirects.
   */
  public static <T> T withAppendable(Path path, WithOpened<T> use) throws IOException {
    int fd = open(path, Libc.O_WRONLY | Libc.O_APPEND | Libc.O_CREAT, 0600);
    try {
      Path opened = Path.of("/proc/self/fd/" + fd);
      requireRegular(path, opened);
      return use.apply(opened);
    } finally {
      Libc.C.close(fd);
    }
  }

  /** Appends one line (a newline is added); see {@link #openForAppending}. */
  public static void appendLine(Path path, String line) throws IOException {
    try (FileChannel channel = openForAppending(path)) {
      ByteBuffer bytes = ByteBuffer.wrap((line + "\n").getBytes(StandardCharsets.UTF_8));
      while (bytes.hasRemaining()) {
        channel.write(bytes);
      }
    }
  }

  /**
   * The whole of a small file as text, or empty when it is missing, not a regular file, or larger
   * than {@code maxBytes}.
   */
  public static Optional<String> readSmall(Path path, int maxBytes) {
    return readSmallFile(path, maxBytes).map(SmallFile::text);
  }

  /** A small file's text, and when it was last written. */
  public record SmallFile(String text, Instant modifiedAt) {}

  /**
   * The whole of a small file as text with its modification time, both from the one opened
   * descriptor; empty when it is missing, not a regular file, or larger than {@code maxBytes}. The
   * time is read after the text, so it is never older than the write that text came from.
   */
  public static Optional<SmallFile> readSmallFile(Path path, int maxBytes) {
    try {
      int fd = open(path, Libc.O_RDONLY, 0);
      try {
        Path opened = Path.of("/proc/self/fd/" + fd);
        requireRegular(path, opened);
        try (FileChannel channel = FileChannel.open(opened, StandardOpenOption.READ)) {
          if (channel.size() > maxBytes) {
            return Optional.empty();
          }
          String text = read(channel, 0, (int) channel.size());
          // stat(2) of the descriptor's /proc name is fstat(2) of the descriptor: that very inode.
          Instant modified =
              Files.readAttributes(opened, BasicFileAttributes.class)
                  .lastModifiedTime()
                  .toInstant();
          return Optional.of(new SmallFile(text, modified));
        }
      } finally {
        Libc.C.close(fd);
      }
    } catch (IOException e) {
      return Optional.empty();
    }
  }

  /**
   * The whole of a small file as text.
   *
   * @throws NoSuchFileException when nothing is there
   * @throws NotARegularFileException when something other than a regular file is there
   * @throws IOException when it is larger than {@code maxBytes} or cannot be read
   */
  public static String read(Path path, int maxBytes) throws IOException {
    try (FileChannel channel = openForReading(path)) {
      if (channel.size() > maxBytes) {
        throw new IOException(path + " is larger than " + maxBytes + " bytes");
      }
      return read(channel, 0, (int) channel.size());
    }
  }

  /**
   * The last {@code maxBytes} of a file as text.
   *
   * @throws NoSuchFileException when nothing is there
   * @throws NotARegularFileException when something other than a regular file is there
   */
  public static String readTail(Path path, int maxBytes) throws IOException {
    try (FileChannel channel = openForReading(path)) {
      long size = channel.size();
      long start = Math.max(0, size - maxBytes);
      return read(channel, start, (int) (size - start));
    }
  }

  /** Reads up to {@code length} bytes from {@code position}; a file that shrank gives fewer. */
  static String read(FileChannel channel, long position, int length) throws IOException {
    return new String(readBytes(channel, position, length), StandardCharsets.UTF_8);
  }

  /**
   * Reads up to {@code length} bytes from {@code position}, looping over short reads; a file that
   * shrank gives fewer. The logs' text and the metrics files' lines are both read this way.
   */
  public static byte[] readBytes(FileChannel channel, long position, int length)
      throws IOException {
    ByteBuffer buffer = ByteBuffer.allocate(length);
    long at = position;
    while (buffer.hasRemaining()) {
      int n = channel.read(buffer, at);
      if (n < 0) {
        break;
      }
      at += n;
    }
    return Arrays.copyOf(buffer.array(), buffer.position());
  }

  /** Sets this process's file-creation mask, returning the one it had. */
  public static int umask(int mask) {
    return Libc.C.umask(mask);
  }

  private static int open(Path path, int flags, int mode) throws IOException {
    int fd =
        Libc.C.open(
            path.toString(), flags | Libc.O_NOFOLLOW | Libc.O_NONBLOCK | Libc.O_CLOEXEC, mode);
    if (fd >= 0) {
      return fd;
    }
    int errno = Native.getLastError();
    switch (errno) {
      case Libc.ENOENT -> throw new NoSuchFileException(path.toString());
      case Libc.ELOOP -> throw new NotARegularFileException(path, "a symbolic link");
      case Libc.EISDIR -> throw new NotARegularFileException(path, "a directory");
      // A FIFO opened for writing without a reader.
      case Libc.ENXIO -> throw new NotARegularFileException(path, "a FIFO");
      default ->
          throw new IOException(path + ": " + Libc.C.strerror(errno) + " (errno " + errno + ")");
    }
  }

  private static FileChannel reopen(Path path, int fd, Set<StandardOpenOption> options)
      throws IOException {
    Path opened = Path.of("/proc/self/fd/" + fd);
    requireRegular(path, opened);
    return FileChannel.open(opened, options);
  }

  private static void requireRegular(Path path, Path opened) throws IOException {
    int type = (Integer) Files.getAttribute(opened, "unix:mode") & S_IFMT;
    if (type != S_IFREG) {
      throw new NotARegularFileException(path, kindOf(type));
    }
  }

  private static String kindOf(int type) {
    return switch (type) {
      case 0010000 -> "a FIFO";
      case 0020000 -> "a character device";
      case 0040000 -> "a directory";
      case 0060000 -> "a block device";
      case 0120000 -> "a symbolic link";
      case 0140000 -> "a socket";
      default -> "of file type " + Integer.toOctalString(type);
    };
  }
}
