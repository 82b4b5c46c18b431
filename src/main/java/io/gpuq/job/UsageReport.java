package io.gpuq.job;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Who used what in a time window (issue 37), per group: jobs by final state, GPU-hours (whole-GPU
 * equivalents), GPU-memory GiB-hours (budgets) and measured (peaks), core-hours, host-memory
 * GiB-hours, and the wait from submission to first start (p50, p95, max). An attempt counts in the
 * window in which it ended, whole; a job in the one in which it finished.
 *
 * <p>The database sums the live rows per group ({@link UsageSource}); the {@link Builder} adds what
 * retention rolled up per day, and keeps a submitter to the groups of their own jobs.
 */
public record UsageReport(Instant from, Instant to, String by, List<Group> groups, Group total) {

  static final double GIB = 1024.0 * 1024 * 1024;

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

  /**
   * Seconds from submission to first start, over the jobs that finished and had started. Exact
   * (nearest rank) over live jobs; where rolled-up days count too, p50 and p95 are read from {@link
   * WaitHistogram}s (at most 19 % above the true value).
   */
  public record Wait(Double p50, Double p95, Double max) {
    static final Wait NONE = new Wait(null, null, null);
  }

  /**
   * One ended attempt's holdings, for summing in Java (the roll-up of a retention batch).
   *
   * @param gpuEquivalents whole-GPU equivalents it held: GPUs × (1, or its budget's share of a GPU)
   * @param gpuBudgetBytes its GPU-memory budget over all its GPUs
   * @param peakGpuBytes the most GPU memory measured on one of its GPUs, times its GPUs
   */
  public record EndedAttempt(
      String owner,
      Instant startedAt,
      Instant finishedAt,
      double gpuEquivalents,
      long gpuBudgetBytes,
      long peakGpuBytes,
      double cpus,
      long memoryBytes) {}

  /** A group's figures being summed. */
  public static final class Tally {
    final Map<JobState, Long> jobs = new EnumMap<>(JobState.class);
    double gpuHours;
    double gpuMemoryGiBHours;
    double measuredGpuMemoryGiBHours;
    double coreHours;
    double memoryGiBHours;

    /** The live jobs' waits, exact, from the database; null: none read. */
    Wait exact;

    /** The live jobs' waits in buckets: read only where rolled-up waits count too. */
    final WaitHistogram live = new WaitHistogram();

    final WaitHistogram rolledUp = new WaitHistogram();
    Double rolledUpMax;
    boolean lessLabelled;

    /** Live waits came from two time ranges: their percentiles are read from the buckets. */
    boolean split;

    public void addHours(
        double gpuHours,
        double gpuMemoryGiBHours,
        double measuredGpuMemoryGiBHours,
        double coreHours,
        double memoryGiBHours) {
      this.gpuHours += gpuHours;
      this.gpuMemoryGiBHours += gpuMemoryGiBHours;
      this.measuredGpuMemoryGiBHours += measuredGpuMemoryGiBHours;
      this.coreHours += coreHours;
      this.memoryGiBHours += memoryGiBHours;
    }

    public void add(EndedAttempt a) {
      double hours = Duration.between(a.startedAt(), a.finishedAt()).toMillis() / 3_600_000.0;
      addHours(
          a.gpuEquivalents() * hours,
          a.gpuBudgetBytes() / GIB * hours,
          a.peakGpuBytes() / GIB * hours,
          a.cpus() * hours,
          a.memoryBytes() / GIB * hours);
    }

    public void addJobs(JobState state, long count) {
      if (count != 0) {
        jobs.merge(state, count, Long::sum);
      }
    }

    /** A job that finished, with its wait in seconds (null: it never started). */
    public void addFinished(JobState state, Double waitSeconds) {
      addJobs(state, 1);
      if (waitSeconds != null) {
        live.addSeconds(waitSeconds);
        rolledUpMax = rolledUpMax == null ? waitSeconds : Math.max(rolledUpMax, waitSeconds);
      }
    }

    /**
     * Adds the live jobs' exact waits of one time range, as the database computed them; of two
     * ranges that both hold waits only the max stays exact (p50 and p95 are then read from the
     * buckets).
     */
    public void exactWaits(Wait waits) {
      if (waits.max() == null) {
        return;
      }
      if (exact == null || exact.max() == null) {
        exact = waits;
      } else {
        exact = new Wait(null, null, Math.max(exact.max(), waits.max()));
        split = true;
      }
    }

    /** Adds {@code count} waits of one bucket, the longest {@code max} seconds. */
    public void addWaits(int bucket, long count, Double max) {
      live.add(bucket, count);
      if (max != null) {
        rolledUpMax = rolledUpMax == null ? max : Math.max(rolledUpMax, max);
      }
    }

    public Map<JobState, Long> jobs() {
      return jobs;
    }

    public double gpuHours() {
      return gpuHours;
    }

    public double gpuMemoryGiBHours() {
      return gpuMemoryGiBHours;
    }

    public double measuredGpuMemoryGiBHours() {
      return measuredGpuMemoryGiBHours;
    }

    public double coreHours() {
      return coreHours;
    }

    public double memoryGiBHours() {
      return memoryGiBHours;
    }

    /** The waits added by {@link #addFinished}, as a roll-up keeps them. */
    public WaitHistogram waits() {
      return live;
    }

    /** The longest wait added by {@link #addFinished}; null: none. */
    public Double longestWait() {
      return rolledUpMax;
    }

    public WaitHistogram liveHistogram() {
      return live;
    }

    void add(UsageSource.RolledUpDay day, int sign) {
      day.jobs().forEach((state, count) -> addJobs(state, sign * count));
      addHours(
          sign * day.gpuHours(),
          sign * day.gpuMemoryGiBHours(),
          sign * day.measuredGpuMemoryGiBHours(),
          sign * day.coreHours(),
          sign * day.memoryGiBHours());
      if (sign > 0) {
        rolledUp.addAll(day.waits());
        if (day.waitMaxSeconds() != null) {
          rolledUpMax =
              rolledUpMax == null
                  ? day.waitMaxSeconds()
                  : Math.max(rolledUpMax, day.waitMaxSeconds());
        }
      } else {
        rolledUp.subtract(day.waits());
        lessLabelled = true;
      }
    }

    /** A group of no label that the labels' rows took everything from. */
    boolean emptied() {
      double sums =
          Math.abs(gpuHours)
              + Math.abs(gpuMemoryGiBHours)
              + Math.abs(measuredGpuMemoryGiBHours)
              + Math.abs(coreHours)
              + Math.abs(memoryGiBHours);
      return lessLabelled
          && jobs.values().stream().allMatch(n -> n <= 0)
          && sums < 1e-9
          && (exact == null || exact.max() == null)
          && live.total() == 0
          && rolledUp.total() == 0;
    }

    boolean hasRolledUpWaits() {
      return rolledUp.total() > 0 || split;
    }

    Group group(String key) {
      Map<JobState, Long> counts = new EnumMap<>(JobState.class);
      for (JobState state : JobState.values()) {
        if (state.isTerminal()) {
          counts.put(state, Math.max(0, jobs.getOrDefault(state, 0L)));
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
          waitFigures());
    }

    private Wait waitFigures() {
      Double rolledMax = rolledUpMax;
      if (lessLabelled) {
        // A day's longest wait may have been a labelled job's: what is left is bounded by the
        // highest bucket still holding a wait.
        int highest = rolledUp.highest();
        rolledMax =
            highest < 0 || rolledMax == null
                ? null
                : Math.min(rolledMax, WaitHistogram.upperBound(highest));
      }
      Wait live = exact == null ? Wait.NONE : exact;
      Double max = max(live.max(), rolledMax);
      if (!hasRolledUpWaits()) {
        return new Wait(live.p50(), live.p95(), max);
      }
      WaitHistogram all = new WaitHistogram();
      all.addAll(this.live);
      all.addAll(rolledUp);
      return new Wait(all.percentile(0.50, max), all.percentile(0.95, max), max);
    }

    private static Double max(Double a, Double b) {
      if (a == null) {
        return b;
      }
      if (b == null) {
        return a;
      }
      return Math.max(a, b);
    }
  }

  /**
   * Puts a report together from the database's sums: the groups (of {@code onlyOwner}'s jobs alone,
   * when not null) and everyone's total.
   */
  public static final class Builder {
    private final Instant from;
    private final Instant to;
    private final By by;
    private final String byText;
    private final String onlyOwner;
    private final Map<String, Tally> groups =
        new TreeMap<>(Comparator.nullsLast(String::compareTo));
    private final Tally total = new Tally();

    public Builder(Instant from, Instant to, By by, String byText, String onlyOwner) {
      this.from = from;
      this.to = to;
      this.by = by;
      this.byText = byText;
      this.onlyOwner = onlyOwner;
    }

    private boolean shown(String owner) {
      return onlyOwner == null || onlyOwner.equals(owner);
    }

    /** The tally of group {@code key} (the groups' queries are already kept to the owner). */
    public Tally group(String key) {
      return groups.computeIfAbsent(key, k -> new Tally());
    }

    public Tally total() {
      return total;
    }

    /** Attempts' hours summed per owner and group. */
    public void attempts(
        String owner,
        String key,
        double gpuHours,
        double gpuMemoryGiBHours,
        double measuredGpuMemoryGiBHours,
        double coreHours,
        double memoryGiBHours) {
      total.addHours(
          gpuHours, gpuMemoryGiBHours, measuredGpuMemoryGiBHours, coreHours, memoryGiBHours);
      if (shown(owner)) {
        group(key)
            .addHours(
                gpuHours, gpuMemoryGiBHours, measuredGpuMemoryGiBHours, coreHours, memoryGiBHours);
      }
    }

    /**
     * Days retention rolled up: {@code days} one row per day and owner, {@code labelled} (when
     * grouped by a label) one per day, owner and value of that label, whose figures are also in the
     * day's row and so are taken from the group of no label.
     */
    public void rolledUp(
        List<UsageSource.RolledUpDay> days, List<UsageSource.RolledUpDay> labelled) {
      for (UsageSource.RolledUpDay day : days) {
        total.add(day, 1);
        if (shown(day.owner())) {
          String key =
              switch (by) {
                case OWNER -> day.owner();
                case DAY -> day.day().toString();
                case LABEL -> null;
              };
          group(key).add(day, 1);
        }
      }
      for (UsageSource.RolledUpDay day : labelled) {
        if (shown(day.owner())) {
          group(day.labelValue()).add(day, 1);
          group(null).add(day, -1);
        }
      }
    }

    /**
     * Whether live waits must be read in buckets: to be merged with rolled-up ones, or read from
     * two time ranges.
     */
    public boolean needsLiveHistograms(int liveRanges) {
      return liveRanges > 1 || total.hasRolledUpWaits();
    }

    public UsageReport build() {
      List<Group> list = new ArrayList<>();
      groups.forEach(
          (key, tally) -> {
            if (!tally.emptied()) {
              list.add(tally.group(key));
            }
          });
      return new UsageReport(from, to, byText, list, total.group(null));
    }
  }
}
