package io.gpuq.isolation;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Optional;
import java.util.Set;

/**
 * Whether an account may pass through every directory down to one: a job whose account cannot reach
 * its work directory would fail at once, every time, so gpuq checks at start instead. Supplementary
 * groups are not considered; a directory passable only through one reads as blocked.
 */
public final class Reachability {

  private Reachability() {}

  /**
   * The first directory on the way from {@code /} to {@code dir} that {@code account} may not pass
   * through, described, or empty when it may reach {@code dir}.
   */
  public static Optional<String> blocker(Path dir, Account account) throws IOException {
    if (account.isRoot()) {
      return Optional.empty();
    }
    Path absolute = dir.toAbsolutePath().normalize();
    for (int i = 0; i <= absolute.getNameCount(); i++) {
      Path step = i == 0 ? absolute.getRoot() : absolute.getRoot().resolve(absolute.subpath(0, i));
      if (!executableBy(step, account)) {
        return Optional.of(
            step
                + " ("
                + PosixFilePermissions.toString(Files.getPosixFilePermissions(step))
                + ", owner uid "
                + Files.getAttribute(step, "unix:uid")
                + ")");
      }
    }
    return Optional.empty();
  }

  /** Whether {@code account} may enter {@code dir}: it is a directory, reachable all the way. */
  public static boolean canEnter(Path dir, Account account) {
    try {
      return Files.isDirectory(dir) && blocker(dir, account).isEmpty();
    } catch (IOException e) {
      return false;
    }
  }

  /** Whether {@code account} may run {@code file}: reachable, regular, executable to it. */
  public static boolean canExecute(Path file, Account account) {
    try {
      Path absolute = file.toAbsolutePath().normalize();
      if (!Files.isRegularFile(absolute)
          || absolute.getParent() == null
          || blocker(absolute.getParent(), account).isPresent()) {
        return false;
      }
      return account.isRoot() ? Files.isExecutable(absolute) : executableBy(absolute, account);
    } catch (IOException e) {
      return false;
    }
  }

  /** The x bit that applies to {@code account}: the owner's, the group's, or everyone else's. */
  private static boolean executableBy(Path path, Account account) throws IOException {
    int uid = (Integer) Files.getAttribute(path, "unix:uid");
    int gid = (Integer) Files.getAttribute(path, "unix:gid");
    Set<PosixFilePermission> mode = Files.getPosixFilePermissions(path);
    return mode.contains(
        uid == account.uid()
            ? PosixFilePermission.OWNER_EXECUTE
            : gid == account.gid()
                ? PosixFilePermission.GROUP_EXECUTE
                : PosixFilePermission.OTHERS_EXECUTE);
  }
}
