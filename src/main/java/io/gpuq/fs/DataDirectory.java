package io.gpuq.fs;

import io.gpuq.startup.StartRefusedException;
import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * gpuq's data directory and who may reach what in it.
 *
 * <pre>
 * data-dir/            0711  others may pass through to work/ and python/, never list
 *   admin.token        0600
 *   db/                0700  H2's files, 0600
 *   bin/               0700  the worker wrapper, run as gpuq
 *   jobs/              0700  per job: output.log, attempt-N.exit, attempt-N.pid (gpuq's, 0600)
 *   work/              0711  per job: its default working directory and TMPDIR, owned by its account
 *   jax-cache/         0711  per account: a JAX compilation cache that account alone can write
 *   python/            0755  gpuq's Python hook, readable by every job
 * </pre>
 *
 * Everything a job can write lives under {@code work/} and {@code jax-cache/}; everything gpuq
 * reads back to decide a job's fate lives where no job's account can reach it.
 */
public record DataDirectory(Path root) {

  private static final Logger log = LoggerFactory.getLogger(DataDirectory.class);

  public static final Set<PosixFilePermission> PRIVATE_DIR =
      PosixFilePermissions.fromString("rwx------");
  public static final Set<PosixFilePermission> PRIVATE_FILE =
      PosixFilePermissions.fromString("rw-------");
  public static final Set<PosixFilePermission> PASS_THROUGH =
      PosixFilePermissions.fromString("rwx--x--x");
  public static final Set<PosixFilePermission> PUBLIC_DIR =
      PosixFilePermissions.fromString("rwxr-xr-x");
  public static final Set<PosixFilePermission> PUBLIC_FILE =
      PosixFilePermissions.fromString("rw-r--r--");

  /** Every file gpuq creates starts private; what jobs must read is opened up explicitly. */
  private static final int UMASK = 0077;

  public DataDirectory {
    root = root.toAbsolutePath().normalize();
  }

  public Path adminToken() {
    return root.resolve("admin.token");
  }

  public Path database() {
    return root.resolve("db");
  }

  /** The embedded database's backups (docs/backup.md). */
  public Path backups() {
    return root.resolve("backups");
  }

  public Path bin() {
    return root.resolve("bin");
  }

  public Path jobs() {
    return root.resolve("jobs");
  }

  public Path work() {
    return root.resolve("work");
  }

  public Path jaxCache() {
    return root.resolve("jax-cache");
  }

  public Path python() {
    return root.resolve("python");
  }

  /**
   * Sets gpuq's umask to 077, creates the layout, and tightens looser modes of what an earlier gpuq
   * (or an operator) left, saying so at WARN. Runs before the database is opened.
   *
   * @return what it changed, one line each
   */
  public List<String> prepare() {
    List<String> fixed = new ArrayList<>();
    try {
      // With the operator's umask: these are the operator's directories, which every job's
      // account must pass through.
      if (root.getParent() != null) {
        Files.createDirectories(root.getParent());
      }
      SafeFiles.umask(UMASK);
      directory(root, PASS_THROUGH, fixed);
      for (Path dir : List.of(database(), backups(), bin(), jobs())) {
        directory(dir, PRIVATE_DIR, fixed);
      }
      for (Path dir : List.of(work(), jaxCache())) {
        directory(dir, PASS_THROUGH, fixed);
      }
      directory(python(), PUBLIC_DIR, fixed);
      refuseLink(adminToken());
      if (Files.isRegularFile(adminToken(), LinkOption.NOFOLLOW_LINKS)) {
        enforce(adminToken(), PRIVATE_FILE, fixed);
      }
      try (DirectoryStream<Path> files = Files.newDirectoryStream(database())) {
        for (Path file : files) {
          if (Files.isRegularFile(file, LinkOption.NOFOLLOW_LINKS)) {
            enforce(file, PRIVATE_FILE, fixed);
          }
        }
      }
    } catch (IOException e) {
      throw new StartRefusedException(
          "cannot prepare the data directory " + root + " (" + e + ")",
          "give gpuq.data-dir a directory gpuq's account may create and write, for example"
              + " --gpuq.data-dir=/var/lib/gpuq as root, or ./data where you start it",
          e);
    }
    fixed.forEach(line -> log.warn("{}", line));
    return List.copyOf(fixed);
  }

  /** Creates the directory with exactly {@code mode}, or enforces it on the one already there. */
  private static void directory(Path dir, Set<PosixFilePermission> mode, List<String> fixed)
      throws IOException {
    refuseLink(dir);
    if (Files.isDirectory(dir)) {
      enforce(dir, mode, fixed);
    } else {
      createWithMode(dir, mode);
    }
  }

  /**
   * gpuq's own paths are never links: a job of an earlier version (which ran as gpuq's account) may
   * have left one to make gpuq, now root, change the owner and mode of what it points to.
   */
  private static void refuseLink(Path path) {
    if (Files.isSymbolicLink(path)) {
      throw new StartRefusedException(
          path + " is a symbolic link; gpuq does not follow links in its data directory",
          "remove it (and check where it points) before starting gpuq");
    }
  }

  /**
   * Creates a directory with exactly {@code mode}: {@code mkdir(2)} alone would apply the umask.
   *
   * @throws java.nio.file.FileAlreadyExistsException when anything is already there, a symbolic
   *     link included
   */
  public static void createWithMode(Path dir, Set<PosixFilePermission> mode) throws IOException {
    Files.createDirectory(dir, PosixFilePermissions.asFileAttribute(PRIVATE_DIR));
    Files.setPosixFilePermissions(dir, mode);
  }

  /**
   * Makes the path gpuq's own with exactly {@code mode}, saying what it was. An earlier gpuq may
   * have run as another user (the image's uid 10001 before jobs got accounts of their own): gpuq
   * takes its files back first, since without CAP_FOWNER it can change the mode of its own only.
   */
  private static void enforce(Path path, Set<PosixFilePermission> mode, List<String> fixed)
      throws IOException {
    int owner = (Integer) Files.getAttribute(path, "unix:uid", LinkOption.NOFOLLOW_LINKS);
    int self = (Integer) Files.getAttribute(Path.of("/proc/self"), "unix:uid");
    if (owner != self) {
      int group = (Integer) Files.getAttribute(Path.of("/proc/self"), "unix:gid");
      Files.setAttribute(path, "unix:gid", group, LinkOption.NOFOLLOW_LINKS);
      Files.setAttribute(path, "unix:uid", self, LinkOption.NOFOLLOW_LINKS);
      fixed.add("took back " + path + " from uid " + owner + " (now gpuq's, uid " + self + ")");
    }
    Set<PosixFilePermission> actual = Files.getPosixFilePermissions(path);
    if (!actual.equals(mode)) {
      Files.setPosixFilePermissions(path, mode);
      fixed.add(
          "fixed the mode of "
              + path
              + ": "
              + PosixFilePermissions.toString(actual)
              + " -> "
              + PosixFilePermissions.toString(mode));
    }
  }
}
