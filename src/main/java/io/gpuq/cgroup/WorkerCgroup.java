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
    writeMemoryLimit(version, path(Controller.MEMORY), bytes);
  }

  /** Writes a memory (and memory plus swap) cap into the group {@code dir}; see limitMemory. */
  static void writeMemoryLimit(CgroupVersion version, Path dir, long bytes) throws IOException {
    if (bytes <= 0) {
      throw new IllegalArgumentException("memory limit " + bytes + " is not positive");
    }
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
   * Its cap on tasks (processes and threads), pids.max; empty when there is none or no pids
   * controller.
   */
  public OptionalLong processLimit() throws IOException {
    Path dir = dirs.get(Controller.PIDS);
    return dir == null
        ? OptionalLong.empty()
        : CgroupFiles.limit(CgroupFiles.read(dir.resolve("pids.max")));
  }

  /**
   * How many forks (and new threads) the kernel refused for the process limit: the {@code max}
   * counter of pids.events (v1: forks refused in this group; v2: times its limit was hit); 0
   * without a pids controller.
   */
  public long forkRefusals() throws IOException {
    Path dir = dirs.get(Controller.PIDS);
    return dir == null ? 0 : CgroupFiles.keyed(dir.resolve("pids.events"), "max").orElse(0);
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
   * Kills every process in it in one step, where the kernel can: v2's {@code cgroup.kill} (Linux
   * 5.14 and later), which reaches a process forked while it runs too.
   *
   * @return false, doing nothing, where there is no such file (v1, or an older kernel): {@link
   *     #freeze} first, then signal what {@link #processes} lists
   */
  public boolean killAtOnce() throws IOException {
    if (version != CgroupVersion.V2) {
      return false;
    }
    Path kill = path(Controller.MEMORY).resolve("cgroup.kill");
    if (!Files.exists(kill)) {
      return false;
    }
    CgroupFiles.write(kill, "1");
    return true;
  }

  /**
   * Freezes its processes (v1's freezer, v2's {@code cgroup.freeze}): none of them runs, nor forks,
   * until {@link #thaw}, so that the list of them stays true while each is signalled. A SIGKILL
   * sent to a frozen process takes effect when it thaws.
   *
   * @param within how long to wait for the kernel to say every process is frozen
   * @return whether it froze within that time; false also where it has no freezer (v1 without the
   *     freezer hierarchy), having written nothing
   */
  public boolean freeze(Duration within) throws IOException, InterruptedException {
    Path state = freezerState();
    if (state == null) {
      return false;
    }
    CgroupFiles.write(state, version == CgroupVersion.V1 ? "FROZEN" : "1");
    long deadline = System.nanoTime() + within.toNanos();
    while (true) {
      if (frozen()) {
        return true;
      }
      if (System.nanoTime() - deadline > 0) {
        return false;
      }
      Thread.sleep(1);
    }
  }

  /** Lets its processes run again after {@link #freeze}; nothing where it has no freezer. */
  public void thaw() throws IOException {
    Path state = freezerState();
    if (state != null && Files.exists(state)) {
      CgroupFiles.write(state, version == CgroupVersion.V1 ? "THAWED" : "0");
    }
  }

  /** The file that freezes it, or null where it has none. */
  private Path freezerState() {
    Path dir = dirs.get(version == CgroupVersion.V1 ? Controller.FREEZER : Controller.MEMORY);
    if (dir == null) {
      return null;
    }
    Path state = dir.resolve(version == CgroupVersion.V1 ? "freezer.state" : "cgroup.freeze");
    return Files.exists(state) ? state : null;
  }

  private boolean frozen() throws IOException {
    if (version == CgroupVersion.V1) {
      return CgroupFiles.read(path(Controller.FREEZER).resolve("freezer.state")).equals("FROZEN");
    }
    return CgroupFiles.keyed(path(Controller.MEMORY).resolve("cgroup.events"), "frozen").orElse(0)
        == 1;
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
