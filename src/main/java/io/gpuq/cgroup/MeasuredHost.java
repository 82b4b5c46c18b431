package io.gpuq.cgroup;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * The cores and memory gpuq itself may use on this host, before any reservation: the CPUs of its
 * affinity mask, fewer where a cgroup CPU quota allows less (a container limited to 4 CPUs has 4);
 * the host's memory, or its cgroup's limit where lower.
 *
 * @param cpus at least 1
 * @param cpusFrom what decided {@code cpus}, for the log and the health details
 * @param memoryFrom what decided {@code memoryBytes}
 */
public record MeasuredHost(int cpus, String cpusFrom, long memoryBytes, String memoryFrom) {

  public MeasuredHost {
    if (cpus < 1 || memoryBytes <= 0) {
      throw new IllegalArgumentException(cpus + " CPUs, " + memoryBytes + " bytes");
    }
  }

  /** This host, as this process sees it. */
  public static MeasuredHost measure() throws IOException {
    return measure(HostPaths.system(), CgroupSupport.detect(), Affinity.ofThisProcess());
  }

  /**
   * Measures from {@code proc/meminfo} and the cgroup files below {@code paths}.
   *
   * @param affinity gpuq's own affinity mask ({@link Affinity#ofThisProcess()})
   */
  public static MeasuredHost measure(HostPaths paths, CgroupSupport support, CpuList affinity)
      throws IOException {
    if (affinity.isEmpty()) {
      throw new IllegalArgumentException("an empty affinity mask");
    }
    int cpus = affinity.count();
    String cpusFrom = "affinity mask " + affinity + " (" + cpus + " CPUs)";
    Optional<Quota> quota = cpuQuota(support);
    if (quota.isPresent() && quota.get().cpus() < cpus) {
      cpus = quota.get().cpus();
      cpusFrom = quota.get().describe();
    }
    long memory = memTotal(paths.proc().resolve("meminfo"));
    String memoryFrom = "MemTotal of " + paths.proc().resolve("meminfo");
    Optional<Limit> limit = memoryLimit(support);
    if (limit.isPresent() && limit.get().bytes() < memory) {
      memory = limit.get().bytes();
      memoryFrom = limit.get().file().toString();
    }
    return new MeasuredHost(cpus, cpusFrom, memory, memoryFrom);
  }

  /** What jobs may be given once {@code reserved} is set aside: never less than 1 core. */
  public NodeCapacity minus(Reservation reserved) {
    return new NodeCapacity(
        Math.max(1, cpus - reserved.cpus()), Math.max(0, memoryBytes - reserved.memoryBytes()));
  }

  record Quota(long quota, long period, Path file) {
    /** Whole CPUs, rounded down: 1.5 CPUs of quota run 1 busy job well, not 2. At least 1. */
    int cpus() {
      return (int) Math.max(1, Math.min(Integer.MAX_VALUE, quota / period));
    }

    String describe() {
      return "cgroup CPU quota " + quota + "/" + period + " of " + file + " (" + cpus() + " CPUs)";
    }
  }

  record Limit(long bytes, Path file) {}

  /** The tightest quota on gpuq's own cgroup and every one above it that it can see. */
  static Optional<Quota> cpuQuota(CgroupSupport support) throws IOException {
    Optional<Hierarchy> hierarchy = cpuHierarchy(support);
    if (hierarchy.isEmpty()) {
      return Optional.empty();
    }
    Quota tightest = null;
    for (Path dir = hierarchy.get().ownGroup();
        dir != null && dir.startsWith(hierarchy.get().mountPoint());
        dir = dir.getParent()) {
      Quota quota = null;
      if (support.version() == CgroupVersion.V1) {
        Path quotaFile = dir.resolve("cpu.cfs_quota_us");
        if (Files.exists(quotaFile)) {
          long us = CgroupFiles.readLong(quotaFile);
          if (us > 0) {
            quota =
                new Quota(us, CgroupFiles.readLong(dir.resolve("cpu.cfs_period_us")), quotaFile);
          }
        }
      } else {
        Path max = dir.resolve("cpu.max");
        if (Files.exists(max)) {
          String[] fields = CgroupFiles.read(max).split("\\s+");
          if (!fields[0].equals("max")) {
            quota = new Quota(Long.parseLong(fields[0]), Long.parseLong(fields[1]), max);
          }
        }
      }
      if (quota != null
          && quota.period() > 0
          && (tightest == null || quota.cpus() < tightest.cpus())) {
        tightest = quota;
      }
    }
    return Optional.ofNullable(tightest);
  }

  private static Optional<Hierarchy> cpuHierarchy(CgroupSupport support) {
    Optional<Hierarchy> cpu = support.hierarchy(Controller.CPU);
    if (cpu.isEmpty() && support.version() == CgroupVersion.V2) {
      // cpu.max lies in the groups above gpuq's even when its own group lacks the controller.
      return support.hierarchy(Controller.MEMORY).or(() -> support.hierarchy(Controller.CPUACCT));
    }
    return cpu;
  }

  /**
   * The lowest memory limit on gpuq's own cgroup and those above it: a v1 child is charged to every
   * ancestor, a v2 one likewise, so the lowest binds. v1's {@code hierarchical_memory_limit} also
   * counts ancestors this process cannot see.
   */
  static Optional<Limit> memoryLimit(CgroupSupport support) throws IOException {
    Optional<Hierarchy> hierarchy = support.hierarchy(Controller.MEMORY);
    if (hierarchy.isEmpty()) {
      return Optional.empty();
    }
    boolean v1 = support.version() == CgroupVersion.V1;
    Limit lowest = null;
    Path own = hierarchy.get().ownGroup();
    for (Path dir = own;
        dir != null && dir.startsWith(hierarchy.get().mountPoint());
        dir = dir.getParent()) {
      Path file = dir.resolve(v1 ? "memory.limit_in_bytes" : "memory.max");
      if (Files.exists(file)) {
        OptionalLong bytes = CgroupFiles.limit(CgroupFiles.read(file));
        if (bytes.isPresent() && (lowest == null || bytes.getAsLong() < lowest.bytes())) {
          lowest = new Limit(bytes.getAsLong(), file);
        }
      }
    }
    Path stat = own.resolve("memory.stat");
    if (v1 && Files.exists(stat)) {
      OptionalLong hierarchical = CgroupFiles.keyed(stat, "hierarchical_memory_limit");
      if (hierarchical.isPresent()
          && hierarchical.getAsLong() < CgroupFiles.UNLIMITED_FROM
          && (lowest == null || hierarchical.getAsLong() < lowest.bytes())) {
        lowest = new Limit(hierarchical.getAsLong(), stat);
      }
    }
    return Optional.ofNullable(lowest);
  }

  static long memTotal(Path meminfo) throws IOException {
    OptionalLong kib = OptionalLong.empty();
    for (String line : Files.readAllLines(meminfo)) {
      if (line.startsWith("MemTotal:")) {
        String[] fields = line.substring("MemTotal:".length()).strip().split("\\s+");
        kib = OptionalLong.of(Long.parseLong(fields[0]));
      }
    }
    return kib.orElseThrow(() -> new IOException(meminfo + " has no MemTotal line")) * 1024;
  }
}
