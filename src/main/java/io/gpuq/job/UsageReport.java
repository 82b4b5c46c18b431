package io.gpuq.job;

import io.gpuq.job.UsageSource.EndedAttempt;
import io.gpuq.job.UsageSource.FinishedJob;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Function;

/**
 * Who used what in a time window (issue 37), per group: jobs by final state, GPU-hours (whole-GPU
 * equivalents), GPU-memory GiB-hours (budgets) and measured (peaks), core-hours, host-memory
 * GiB-hours, and the wait from submission to first start (p50, p95, max). An attempt counts in the
 * window in which it ended, whole; a job in the one in which it finished.
 */
public record UsageReport(Instant from, Instant to, String by, List<Group> groups, Group total) {

  private static final double GIB = 1024.0 * 1024 * 1024;

  /** How the report is grouped. */
  public enum By {
    OWNER,
    DAY,
    LABEL
  }

  /** One group's figures; {@code key} null for the total and for jobs without the label. */
  public record Group(
      String key,
      Map<JobState, Long> jobs,
      double gpuHours,
      double gpuMemoryGiBHours,
      double measuredGpuMemoryGiBHours,
      double coreHours,
      double memoryGiBHours,
      Wait waitSeconds) {}

  /** Seconds from submission to first start, over the jobs that finished and had started. */
  public record Wait(Double p50, Double p95, Double max) {
    /**
     * @param rolledUpMax the longest wait of the rolled-up days, negative for none: it counts in
     *     the max, not in the percentiles, which the roll-up cannot keep
     */
    static Wait of(List<Long> millis, double rolledUpMax) {
      Double max = rolledUpMax < 0 ? null : rolledUpMax;
      if (millis.isEmpty()) {
        return new Wait(null, null, max);
      }
      List<Long> sorted = millis.stream().sorted().toList();
      double live = seconds(sorted.get(sorted.size() - 1));
      return new Wait(
          seconds(percentile(sorted, 0.50)),
          seconds(percentile(sorted, 0.95)),
          max == null ? live : Math.max(live, max));
    }

    /**
     * The nearest-rank percentile: the smallest value with at least {@code p} of them at or below.
     */
    private static long percentile(List<Long> sorted, double p) {
      int rank = (int) Math.ceil(p * sorted.size());
      return sorted.get(Math.max(0, rank - 1));
    }

    private static double seconds(long millis) {
      return millis / 1000.0;
    }
  }

  /** The report over these attempts and jobs, grouped by {@code by}. */
  public static UsageReport of(
      Instant from,
      Instant to,
      By by,
      String byText,
      List<EndedAttempt> attempts,
      List<FinishedJob> jobs) {
    return of(from, to, by, byText, attempts, jobs, List.of());
  }

  /**
   * The report, with what retention deleted and rolled up per day ({@code rolledUp}, the whole days
   * of the window): by owner and by day in their groups; by label in the group of no label, as the
   * roll-up keeps no labels.
   */
  public static UsageReport of(
      Instant from,
      Instant to,
      By by,
      String byText,
      List<EndedAttempt> attempts,
      List<FinishedJob> jobs,
      List<UsageSource.RolledUpDay> rolledUp) {
    Function<EndedAttempt, String> attemptKey =
        switch (by) {
          case OWNER -> EndedAttempt::owner;
          case LABEL -> EndedAttempt::group;
          case DAY -> a -> day(a.finishedAt());
        };
    Function<FinishedJob, String> jobKey =
        switch (by) {
          case OWNER -> FinishedJob::owner;
          case LABEL -> FinishedJob::group;
          case DAY -> j -> day(j.finishedAt());
        };
    Map<String, Sums> byKey = new TreeMap<>(java.util.Comparator.nullsLast(String::compareTo));
    Sums total = new Sums();
    for (EndedAttempt attempt : attempts) {
      byKey.computeIfAbsent(attemptKey.apply(attempt), k -> new Sums()).add(attempt);
      total.add(attempt);
    }
    for (FinishedJob job : jobs) {
      byKey.computeIfAbsent(jobKey.apply(job), k -> new Sums()).add(job);
      total.add(job);
    }
    for (UsageSource.RolledUpDay day : rolledUp) {
      String key =
          switch (by) {
            case OWNER -> day.owner();
            case LABEL -> null;
            case DAY -> day.day().toString();
          };
      byKey.computeIfAbsent(key, k -> new Sums()).add(day);
      total.add(day);
    }
    List<Group> groups = new ArrayList<>();
    byKey.forEach((key, sums) -> groups.add(sums.group(key)));
    return new UsageReport(from, to, byText, groups, total.group(null));
  }

  private static String day(Instant at) {
    return at.atOffset(ZoneOffset.UTC).toLocalDate().toString();
  }

  private static final class Sums {
    final Map<JobState, Long> jobs = new EnumMap<>(JobState.class);
    double gpuHours;
    double gpuMemoryGiBHours;
    double measuredGpuMemoryGiBHours;
    double coreHours;
    double memoryGiBHours;
    final List<Long> waits = new ArrayList<>();
    double rolledUpWaitMax = -1;

    void add(EndedAttempt a) {
      double hours = Duration.between(a.startedAt(), a.finishedAt()).toMillis() / 3_600_000.0;
      gpuHours += a.gpuEquivalents() * hours;
      gpuMemoryGiBHours += a.gpuBudgetBytes() / GIB * hours;
      measuredGpuMemoryGiBHours += a.peakGpuBytes() / GIB * hours;
      coreHours += a.cpus() * hours;
      memoryGiBHours += a.memoryBytes() / GIB * hours;
    }

    void add(FinishedJob j) {
      jobs.merge(j.state(), 1L, Long::sum);
      if (j.waitMillis() != null) {
        waits.add(j.waitMillis());
      }
    }

    void add(UsageSource.RolledUpDay day) {
      day.jobs().forEach((state, count) -> jobs.merge(state, count, Long::sum));
      gpuHours += day.gpuHours();
      gpuMemoryGiBHours += day.gpuMemoryGiBHours();
      measuredGpuMemoryGiBHours += day.measuredGpuMemoryGiBHours();
      coreHours += day.coreHours();
      memoryGiBHours += day.memoryGiBHours();
      if (day.waitMaxSeconds() != null) {
        rolledUpWaitMax = Math.max(rolledUpWaitMax, day.waitMaxSeconds());
      }
    }

    Group group(String key) {
      Map<JobState, Long> counts = new EnumMap<>(JobState.class);
      for (JobState state : JobState.values()) {
        if (state.isTerminal()) {
          counts.put(state, jobs.getOrDefault(state, 0L));
        }
      }
      return new Group(
          key,
          counts,
          gpuHours,
          gpuMemoryGiBHours,
          measuredGpuMemoryGiBHours,
          coreHours,
          memoryGiBHours,
          Wait.of(waits, rolledUpWaitMax));
    }
  }
}
