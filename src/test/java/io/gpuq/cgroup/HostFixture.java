package io.gpuq.cgroup;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** A fake host below a test's directory: {@code proc/} and {@code sys/fs/cgroup/} as files. */
final class HostFixture {

  private final Path root;

  HostFixture(Path root) {
    this.root = root;
  }

  HostPaths paths() {
    return new HostPaths(root.resolve("proc"), root.resolve("sys/fs/cgroup"));
  }

  /** Writes {@code content} to {@code path} below the fixture's root, making its directories. */
  HostFixture file(String path, String content) {
    try {
      Path file = root.resolve(path);
      Files.createDirectories(file.getParent());
      Files.writeString(file, content);
      return this;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  Path cgroup(String path) {
    return paths().cgroupMount().resolve(path);
  }

  /** This test machine's layout: cgroup v1, with a v2 hierarchy holding no controllers beside. */
  HostFixture v1(String memoryPath) {
    file(
        "proc/self/cgroup",
        """
        9:name=systemd:/
        4:memory:%s
        3:cpuset:/
        2:cpuacct:/
        1:cpu:/
        0::/
        """
            .formatted(memoryPath));
    file(
        "proc/self/mountinfo",
        """
        31 23 0:28 / /sys/fs/cgroup rw,relatime - tmpfs tmpfs rw,mode=755
        32 31 0:29 / /sys/fs/cgroup/cpu rw,relatime - cgroup cgroup rw,cpu
        33 31 0:30 / /sys/fs/cgroup/cpuacct rw,relatime - cgroup cgroup rw,cpuacct
        34 31 0:31 / /sys/fs/cgroup/cpuset rw,relatime - cgroup cgroup rw,cpuset
        35 31 0:32 / /sys/fs/cgroup/memory rw,relatime - cgroup cgroup rw,memory
        40 31 0:37 / /sys/fs/cgroup/systemd rw,relatime - cgroup cgroup rw,name=systemd
        41 31 0:38 / /sys/fs/cgroup/unified rw,relatime - cgroup2 cgroup2 rw
        """);
    file("sys/fs/cgroup/unified/cgroup.controllers", "\n");
    file("sys/fs/cgroup/cpu/cpu.cfs_quota_us", "-1\n");
    file("sys/fs/cgroup/cpu/cpu.cfs_period_us", "100000\n");
    file("sys/fs/cgroup/memory/memory.limit_in_bytes", "9223372036854771712\n");
    file("sys/fs/cgroup/memory" + memoryPath + "/memory.limit_in_bytes", "9223372036854771712\n");
    return meminfo(24683568);
  }

  /** A systemd host on the unified hierarchy, gpuq in {@code path}. */
  HostFixture v2(String path, String controllers) {
    file("proc/self/cgroup", "0::" + path + "\n");
    file(
        "proc/self/mountinfo",
        """
        24 30 0:22 / /sys/fs/cgroup rw,nosuid,nodev,noexec,relatime shared:9 - cgroup2 cgroup2 rw,nsdelegate,memory_recursiveprot
        """);
    file("sys/fs/cgroup/cgroup.controllers", "cpuset cpu io memory hugetlb pids rdma misc\n");
    file("sys/fs/cgroup" + path + "/cgroup.controllers", controllers + "\n");
    return meminfo(65_000_000);
  }

  HostFixture meminfo(long memTotalKib) {
    return file(
        "proc/meminfo", "MemTotal:       " + memTotalKib + " kB\nMemFree:         1000000 kB\n");
  }
}
