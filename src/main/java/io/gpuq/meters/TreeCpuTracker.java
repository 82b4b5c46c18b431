package io.gpuq.meters;

import io.gpuq.proc.KernelConstants;
import io.gpuq.proc.ProcStat;
import java.time.Duration;
import java.time.Instant;
import java.util.Collection;
import java.util.HashMap;
import java.util.Map;
import java.util.OptionalDouble;
import java.util.Set;

/**
 * The CPU use of each job's process tree from successive readings of it.
 *
 * <p>The tree's summed CPU ticks cannot serve as a counter: when a child exits, its ticks leave the
 * tree (they reach the parent's {@code cutime} only once it is waited for, and not at all for
 * grandchildren whose parent is gone). So each process, identified by pid and start time, adds only
 * what it gained since the previous reading; a process first seen adds all of its ticks, since it
 * started after that reading. The sum is monotone and the last step's share of wall time is the
 * number of cores in use. Processes that exit between two readings lose their last few ticks.
 *
 * <p>Not thread-safe: one caller at a time.
 */
public final class TreeCpuTracker {

  /**
   * @param cpuSeconds CPU time of the tree since gpuq first saw it (a counter)
   * @param cores CPU time per wall-clock second over the last step; empty on the first reading
   */
  public record Reading(double cpuSeconds, OptionalDouble cores) {}

  private record ProcessKey(long pid, long startTimeTicks) {}

  private static final class JobCpu {
    Map<ProcessKey, Long> ticks;
    Instant at;
    long totalTicks;
  }

  private final KernelConstants kernel;
  private final Map<String, JobCpu> jobs = new HashMap<>();

  public TreeCpuTracker(KernelConstants kernel) {
    this.kernel = kernel;
  }

  /** Records the job's process tree as read at {@code at}. */
  public Reading observe(String jobId, Collection<ProcStat> tree, Instant at) {
    Map<ProcessKey, Long> ticks = new HashMap<>();
    for (ProcStat process : tree) {
      ticks.put(new ProcessKey(process.pid(), process.startTimeTicks()), process.cpuTimeTicks());
    }
    JobCpu job = jobs.get(jobId);
    if (job == null) {
      job = new JobCpu();
      job.ticks = ticks;
      job.at = at;
      job.totalTicks = ticks.values().stream().mapToLong(Long::longValue).sum();
      jobs.put(jobId, job);
      return new Reading(kernel.ticksToSeconds(job.totalTicks), OptionalDouble.empty());
    }
    Duration elapsed = Duration.between(job.at, at);
    if (elapsed.isNegative() || elapsed.isZero()) {
      // A reading no later than the previous one (a clock step) measures nothing; the next
      // reading takes its step from the previous one instead.
      return new Reading(kernel.ticksToSeconds(job.totalTicks), OptionalDouble.empty());
    }
    long gained = 0;
    for (Map.Entry<ProcessKey, Long> process : ticks.entrySet()) {
      long before = job.ticks.getOrDefault(process.getKey(), 0L);
      gained += Math.max(0, process.getValue() - before);
    }
    job.ticks = ticks;
    job.at = at;
    job.totalTicks += gained;
    double cores = kernel.ticksToSeconds(gained) / (elapsed.toNanos() / 1e9);
    return new Reading(kernel.ticksToSeconds(job.totalTicks), OptionalDouble.of(cores));
  }

  /** Forgets every job not in {@code jobIds}. */
  public void retainOnly(Set<String> jobIds) {
    jobs.keySet().retainAll(jobIds);
  }

  public void forget(String jobId) {
    jobs.remove(jobId);
  }
}
