package io.gpuq.cgroup;

import java.nio.file.Path;

/**
 * Where this host's {@code /proc} and {@code /sys/fs/cgroup} are: the real ones, or fixture trees
 * in tests. Mount points that {@code mountinfo} names under {@code /sys/fs/cgroup} are read below
 * {@code cgroupMount} instead.
 */
public record HostPaths(Path proc, Path cgroupMount) {

  static final String SYS_FS_CGROUP = "/sys/fs/cgroup";

  public static HostPaths system() {
    return new HostPaths(Path.of("/proc"), Path.of(SYS_FS_CGROUP));
  }

  /** A mount point as mountinfo gives it, moved below {@link #cgroupMount} where it lies in it. */
  Path mountPoint(String fromMountinfo) {
    if (fromMountinfo.equals(SYS_FS_CGROUP)) {
      return cgroupMount;
    }
    if (fromMountinfo.startsWith(SYS_FS_CGROUP + "/")) {
      return cgroupMount.resolve(fromMountinfo.substring(SYS_FS_CGROUP.length() + 1));
    }
    return Path.of(fromMountinfo);
  }
}
