package io.gpuq.cgroup;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.TreeSet;

/**
 * One worker's cgroup: its cores, its memory cap, its processes, and the kernel's own counters of
 * its CPU time, memory and OOM kills. Made by {@link WorkerCgroups}.
 */
public final class WorkerCgroup {

  /** The kernel refuses a CFS quota under 1 ms. */
  static final long MIN_QUOTA_MICROS = 1000;

  static final long DEFAULT_PERIOD_MICROS = 100_000;

  private final WorkerId id;
  private final CgroupVersion version;
  private final Map<Controller, Path> dirs;

  WorkerCgroup(WorkerId id, CgroupVersion version, Map<Controller, Path> dirs) {
    this.id = id;
    this.version = version;
    this.dirs = Map.copyOf(dirs);
  }

  public WorkerId id() {
    return id;
  }

  /** Its directory in the hierarchy of {@code controller} (one directory for all on v2). */
  public Path path(Controller controller) {
    Path dir = dirs.get(controller);
    if (dir == null) {
      throw new IllegalStateException("no " + controller.kernelName() + " hierarchy is mounted");
    }
    return dir;
  }

  /** Each directory it has, once: the files a process must be written into, the dirs to remove. */
  public List<Path> directories() {
    return List.copyOf(new TreeSet<>(dirs.values()));
  }

  /** Binds it to {@code cpus}, which must lie within its parent's. */
  public void bindCpus(CpuList cpus) throws IOException {
    if (cpus.isEmpty()) {
      throw new IllegalArgumentException("no CPUs to bind to");
    }
    CgroupFiles.write(path(Controller.CPUSET).resolve("cpuset.cpus"), cpus.toString());
  }

  public CpuList cpus() throws IOException {
    return CpuList.parse(CgroupFiles.read(path(Controller.CPUSET).resolve("cpuset.cpus")));
  }

  /**
   * Caps its memory at {@code bytes}, and memory plus swap at the same where the kernel accounts
   * swap: a job at its cap is OOM-killed rather than swapped out, so a cap means the same on every
   * node, and a job cannot push its neighbours' pages out.
   */
  public void limitMemory(long bytes) throws IOException {
    if (bytes <= 0) {
      throw new IllegalArgumentException("memory limit " + bytes + " is not positive");
    }
    Path dir = path(Controller.MEMORY);
    if (version == CgroupVersion.V1) {
      Path memsw = dir.resolve("memory.memsw.limit_in_bytes");
      Path memory = dir.resolve("memory.limit_in_bytes");
      // The kernel keeps memory's limit at or below memory+swap's: lower memory first, raise
      // memory+swap first.
      boolean hasSwap = Files.exists(memsw);
      if (hasSwap && bytes > CgroupFiles.readLong(memsw)) {
        CgroupFiles.write(memsw, Long.toString(bytes));
        CgroupFiles.write(memory, Long.toString(bytes));
      } else {
        CgroupFiles.write(memory, Long.toString(bytes));
        if (hasSwap) {
          CgroupFiles.write(memsw, Long.toString(bytes));
        }
      }
    } else {
      CgroupFiles.write(dir.resolve("memory.max"), Long.toString(bytes));
      Path swap = dir.resolve("memory.swap.max");
      if (Files.exists(swap)) {
        CgroupFiles.write(swap, "0");
      }
    }
  }

  /**
   * Holds it to {@code millicores} thousandths of a core by CPU bandwidth: a quota of CPU time per
   * period of the kernel's scheduler (v1 {@code cpu.cfs_quota_us} of {@code cpu.cfs_period_us}; v2
   * {@code cpu.max}), the period left as it is (100 ms by default). A quarter core runs 25 ms in
   * each 100 ms, over all its processes and CPUs; never less than the kernel's smallest quota (1
   * ms).
   */
  public void limitCpu(long millicores) throws IOException {
    if (millicores <= 0) {
      throw new IllegalArgumentException("CPU limit " + millicores + " is not positive");
    }
    Path dir = path(Controller.CPU);
    long period = cpuPeriodMicros(dir);
    long quota = Math.max(MIN_QUOTA_MICROS, Math.multiplyExact(millicores, period) / 1000);
    if (version == CgroupVersion.V1) {
      CgroupFiles.write(dir.resolve("cpu.cfs_quota_us"), Long.toString(quota));
    } else {
      CgroupFiles.write(dir.resolve("cpu.max"), quota + " " + period);
    }
  }

  /**
   * Its CPU bandwidth in thousandths of a core; empty when it has none (whole-core workers, and
   * groups an older gpuq made without a directory in the cpu hierarchy).
   */
  public OptionalLong cpuLimit() throws IOException {
    Path dir = path(Controller.CPU);
    if (!Files.isDirectory(dir)) {
      return OptionalLong.empty();
    }
    long period = cpuPeriodMicros(dir);
    String quota =
        version == CgroupVersion.V1
            ? CgroupFiles.read(dir.resolve("cpu.cfs_quota_us"))
            : CgroupFiles.read(dir.resolve("cpu.max")).split("\\s+")[0];
    OptionalLong micros = CgroupFiles.limit(quota);
    return micros.isEmpty() || period <= 0
        ? OptionalLong.empty()
        : OptionalLong.of(Math.max(1, micros.getAsLong() * 1000 / period));
  }

  /** Whether it sits in a hierarchy that can hold it to a CPU bandwidth. */
  public boolean hasCpuController() {
    return dirs.containsKey(Controller.CPU);
  }

  private long cpuPeriodMicros(Path dir) throws IOException {
    if (version == CgroupVersion.V1) {
      return CgroupFiles.readLong(dir.resolve("cpu.cfs_period_us"));
    }
    String[] max = CgroupFiles.read(dir.resolve("cpu.max")).split("\\s+");
    try {
      return max.length == 2 ? Long.parseLong(max[1]) : DEFAULT_PERIOD_MICROS;
    } catch (NumberFormatException e) {
      throw new IOException(dir.resolve("cpu.max") + " holds '" + String.join(" ", max) + "'", e);
    }
  }

  /** Its memory cap; empty when there is none. */
  public OptionalLong memoryLimit() throws IOException {
    String file = version == CgroupVersion.V1 ? "memory.limit_in_bytes" : "memory.max";
    return CgroupFiles.limit(CgroupFiles.read(path(Controller.MEMORY).resolve(file)));
  }

  /**
   * Moves process {@code pid} (all its threads) in, in every hierarchy; its children to come are
   * born inside. Launch does this from inside the worker before its program runs (see
   * docs/design/worker-cgroups.md).
   */
  public void addProcess(long pid) throws IOException {
    for (Path dir : directories()) {
      CgroupFiles.write(dir.resolve("cgroup.procs"), Long.toString(pid));
    }
  }

  /** The processes in it (in the memory hierarchy, which every process of it joins). */
  public List<Long> processes() throws IOException {
    List<Long> pids = new ArrayList<>();
    try {
      for (String line : Files.readAllLines(path(Controller.MEMORY).resolve("cgroup.procs"))) {
        if (!line.isBlank()) {
          pids.add(Long.parseLong(line.strip()));
        }
      }
    } catch (NoSuchFileException e) {
      // Removed: empty.
    }
    return pids;
  }

  /**
   * How many of its processes the kernel's OOM killer has killed for its memory cap: the kernel's
   * own counter, {@code oom_kill} in memory.oom_control (v1, Linux 4.13 and later) or memory.events
   * (v2).
   *
   * @throws IOException also when the kernel has no such counter (older than 4.13)
   */
  public long oomKills() throws IOException {
    Path file =
        path(Controller.MEMORY)
            .resolve(version == CgroupVersion.V1 ? "memory.oom_control" : "memory.events");
    return CgroupFiles.keyed(file, "oom_kill")
        .orElseThrow(
            () -> new IOException(file + " has no oom_kill counter (Linux 4.13 or later)"));
  }

  /** The CPU time its processes have used, alive or gone (cpuacct.usage; v2 cpu.stat). */
  public Duration cpuUsage() throws IOException {
    if (version == CgroupVersion.V1) {
      return Duration.ofNanos(
          CgroupFiles.readLong(path(Controller.CPUACCT).resolve("cpuacct.usage")));
    }
    Path stat = path(Controller.CPUACCT).resolve("cpu.stat");
    long micros =
        CgroupFiles.keyed(stat, "usage_usec")
            .orElseThrow(() -> new IOException(stat + " has no usage_usec"));
    return Duration.ofNanos(micros * 1000);
  }

  /** The memory charged to it now, page cache included, as its cap counts it. */
  public long memoryUsage() throws IOException {
    String file = version == CgroupVersion.V1 ? "memory.usage_in_bytes" : "memory.current";
    return CgroupFiles.readLong(path(Controller.MEMORY).resolve(file));
  }

  /**
   * Removes it, once its processes have gone: one rmdir per hierarchy (one on v2). Gone already
   * counts as removed.
   *
   * @return false, removing nothing, while it still holds a process
   */
  public boolean remove() throws IOException {
    for (Path dir : directories()) {
      Path procs = dir.resolve("cgroup.procs");
      if (Files.exists(procs) && !CgroupFiles.read(procs).isEmpty()) {
        return false;
      }
    }
    for (Path dir : directories()) {
      Files.deleteIfExists(dir);
    }
    return true;
  }

  @Override
  public String toString() {
    return "cgroup " + id + " " + directories();
  }
}
