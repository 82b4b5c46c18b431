package io.gpuq.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * Where a process's CPU went, read from /proc: per thread (from {@code task/<tid>/schedstat}: time
 * on a CPU and time waiting for one), and the reaped children's CPU ({@code cutime + cstime}) — for
 * gpuq, its workers' whole process trees. The difference of two snapshots covers one phase.
 */
record CpuSnapshot(
    long pid, Map<Long, ThreadTimes> threads, long childrenNanos, long processNanos) {

  /** One thread's counters; names are the kernel's 15-character {@code comm}. */
  record ThreadTimes(String name, long onCpuNanos, long waitingNanos) {}

  /** A group of threads (such as all Tomcat workers) over one phase. */
  record GroupUse(String group, int threads, long onCpuNanos, long waitingNanos) {}

  private static final long NANOS_PER_TICK = 1_000_000_000L / 100; // USER_HZ is 100 on Linux
  private static final Pattern TRAILING_NUMBER = Pattern.compile("[-#\\s]*\\d+$");

  static CpuSnapshot of(long pid) {
    Map<Long, ThreadTimes> threads = new HashMap<>();
    Path tasks = Path.of("/proc", Long.toString(pid), "task");
    try (Stream<Path> list = Files.list(tasks)) {
      for (Path task : (Iterable<Path>) list::iterator) {
        try {
          String name = Files.readString(task.resolve("comm")).strip();
          String[] sched = Files.readString(task.resolve("schedstat")).strip().split("\\s+");
          threads.put(
              Long.parseLong(task.getFileName().toString()),
              new ThreadTimes(name, Long.parseLong(sched[0]), Long.parseLong(sched[1])));
        } catch (IOException | RuntimeException e) {
          // The thread ended between listing and reading it.
        }
      }
    } catch (IOException e) {
      return new CpuSnapshot(pid, Map.of(), 0, 0);
    }
    long[] stat = stat(pid);
    return new CpuSnapshot(
        pid, threads, (stat[2] + stat[3]) * NANOS_PER_TICK, (stat[0] + stat[1]) * NANOS_PER_TICK);
  }

  /** utime, stime, cutime, cstime of a process, in ticks. */
  private static long[] stat(long pid) {
    try {
      String stat = Files.readString(Path.of("/proc", Long.toString(pid), "stat"));
      // Fields after the command name, which may itself contain spaces and parentheses.
      String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
      // f[0] is field 3 (state); utime is field 14.
      return new long[] {
        Long.parseLong(f[11]), Long.parseLong(f[12]), Long.parseLong(f[13]), Long.parseLong(f[14])
      };
    } catch (IOException e) {
      return new long[4];
    }
  }

  /** CPU the process's own threads used since {@code before}. */
  long threadsNanosSince(CpuSnapshot before) {
    return groupsSince(before).stream().mapToLong(GroupUse::onCpuNanos).sum();
  }

  long childrenNanosSince(CpuSnapshot before) {
    return childrenNanos - before.childrenNanos;
  }

  /** Per thread group since {@code before}, busiest first. */
  List<GroupUse> groupsSince(CpuSnapshot before) {
    Map<String, long[]> groups = new LinkedHashMap<>();
    threads.forEach(
        (tid, now) -> {
          ThreadTimes then = before.threads.get(tid);
          long cpu = now.onCpuNanos - (then == null ? 0 : then.onCpuNanos);
          long wait = now.waitingNanos - (then == null ? 0 : then.waitingNanos);
          long[] sum = groups.computeIfAbsent(group(now.name), g -> new long[3]);
          sum[0]++;
          sum[1] += cpu;
          sum[2] += wait;
        });
    return groups.entrySet().stream()
        .map(e -> new GroupUse(e.getKey(), (int) e.getValue()[0], e.getValue()[1], e.getValue()[2]))
        .sorted((a, b) -> Long.compare(b.onCpuNanos, a.onCpuNanos))
        .toList();
  }

  static String group(String comm) {
    if (comm.startsWith("http-nio")) {
      return "http-nio (Tomcat workers)";
    }
    if (comm.startsWith("C2 Compiler") || comm.startsWith("C1 Compiler")) {
      return "JIT compiler";
    }
    if (comm.startsWith("GC Thread") || comm.startsWith("G1 ")) {
      return "GC";
    }
    if (comm.startsWith("gpuq-worker-exi")) {
      return "gpuq-worker-exit";
    }
    return TRAILING_NUMBER.matcher(comm).replaceAll("");
  }
}
