package io.gpuq.launch.env;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.DirectoryStream;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Arrays;
import java.util.List;

/**
 * gpuq's Python hook: a {@code sitecustomize.py} that applies the GPU-memory budget to torch and
 * tensorflow when a worker imports them, and does nothing otherwise. Python runs the first {@code
 * sitecustomize} on {@code sys.path} at start-up, so the hook directory goes first on every
 * worker's {@code PYTHONPATH}; the hook then runs any {@code sitecustomize} that it hides.
 *
 * <p>The source lives on the classpath under {@value #RESOURCE_DIR}; workers need it as a file.
 */
public final class PythonHook {

  public static final String RESOURCE_DIR = "gpuq/python/";

  /** The files that make up the hook, relative to {@link #RESOURCE_DIR}. */
  public static final List<String> FILES = List.of("sitecustomize.py");

  private PythonHook() {}

  /**
   * Writes the hook into {@code dir} (created if missing) and returns {@code dir}, the entry for
   * {@code PYTHONPATH}. Files whose content is already right are left alone; changed ones are
   * replaced atomically, so a worker starting meanwhile reads either the old or the new file.
   */
  public static Path extractTo(Path dir) throws IOException {
    Files.createDirectories(dir);
    // Compiled copies are Python's, written by whoever ran first; every worker loads them. None
    // is kept from before this start, when an account other than gpuq's may have planted one.
    deleteTree(dir.resolve("__pycache__"));
    for (String name : FILES) {
      byte[] content = resource(name);
      Path target = dir.resolve(name);
      if (isGpuqsOwn(target) && Arrays.equals(Files.readAllBytes(target), content)) {
        continue;
      }
      Path temp = Files.createTempFile(dir, "." + name + ".", ".tmp");
      try {
        Files.write(temp, content);
        makeReadableByAll(temp);
        Files.move(
            temp, target, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
      } finally {
        Files.deleteIfExists(temp);
      }
      deleteCompiled(dir, name);
    }
    return dir;
  }

  /** A regular file, not a link, owned by gpuq and writable by nobody else. */
  private static boolean isGpuqsOwn(Path file) throws IOException {
    if (!Files.isRegularFile(file, LinkOption.NOFOLLOW_LINKS)) {
      return false;
    }
    int owner = (Integer) Files.getAttribute(file, "unix:uid", LinkOption.NOFOLLOW_LINKS);
    int self = (Integer) Files.getAttribute(Path.of("/proc/self"), "unix:uid");
    return owner == self
        && Files.getPosixFilePermissions(file, LinkOption.NOFOLLOW_LINKS)
            .equals(PosixFilePermissions.fromString("rw-r--r--"));
  }

  private static void deleteTree(Path root) throws IOException {
    if (!Files.exists(root, LinkOption.NOFOLLOW_LINKS)) {
      return;
    }
    // Files.walk does not follow links: a link inside is deleted, not what it points to.
    try (var paths = Files.walk(root)) {
      for (Path path : paths.sorted(java.util.Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(path);
      }
    }
  }

  /** The hook's source as shipped, for tests and diagnostics. */
  public static byte[] resource(String name) {
    String path = RESOURCE_DIR + name;
    try (InputStream in = PythonHook.class.getClassLoader().getResourceAsStream(path)) {
      if (in == null) {
        throw new IllegalStateException("missing resource " + path);
      }
      return in.readAllBytes();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static void makeReadableByAll(Path file) throws IOException {
    // Temp files start as owner-only; workers may run under another user some day.
    if (FileSystems.getDefault().supportedFileAttributeViews().contains("posix")) {
      Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-r--r--"));
    }
  }

  private static void deleteCompiled(Path dir, String name) throws IOException {
    // Python trusts a .pyc whose recorded source mtime and size match; a rewrite within the same
    // second with the same size would otherwise keep running the old code.
    Path cache = dir.resolve("__pycache__");
    if (!Files.isDirectory(cache)) {
      return;
    }
    String stem = name.endsWith(".py") ? name.substring(0, name.length() - 3) : name;
    try (DirectoryStream<Path> compiled = Files.newDirectoryStream(cache, stem + ".*.pyc")) {
      for (Path pyc : compiled) {
        Files.deleteIfExists(pyc);
      }
    }
  }
}
