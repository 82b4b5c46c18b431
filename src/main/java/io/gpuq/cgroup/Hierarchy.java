package io.gpuq.cgroup;

import java.nio.file.Path;

/**
 * Where one controller's hierarchy is mounted, and gpuq's own cgroup in it.
 *
 * @param mountPoint the directory of the hierarchy's root as this process sees it (in a container,
 *     often gpuq's own cgroup itself)
 * @param ownGroup the directory of the cgroup gpuq runs in
 * @param readOnly whether it is mounted read-only
 */
public record Hierarchy(Path mountPoint, Path ownGroup, boolean readOnly) {

  public Hierarchy {
    if (!ownGroup.startsWith(mountPoint)) {
      throw new IllegalArgumentException(ownGroup + " is not below " + mountPoint);
    }
  }
}
