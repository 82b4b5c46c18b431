package io.gpuq.job;

import java.time.Instant;
import java.time.LocalDate;
import java.util.List;
import java.util.Map;

/**
 * Where a usage report (issue 37) is computed: the database sums the attempts that ended, and
 * counts the jobs that finished, in the window, per group, and adds what retention rolled up per
 * day. A port: {@code storage.UsageTable} answers it from {@code job_attempts}, {@code jobs} and
 * the roll-up tables.
 */
public interface UsageSource {

  /**
   * What retention deleted, kept per UTC day and owner (and, in a second table, per day, owner and
   * label): the figures of the attempts that ended and the jobs that finished that day.
   *
   * @param labelValue the label's value, for a row of a label; null for a day's row
   * @param waits the day's waits in buckets (empty for days rolled up before they were kept)
   */
  record RolledUpDay(
      LocalDate day,
      String owner,
      String labelValue,
      Map<JobState, Long> jobs,
      double gpuHours,
      double gpuMemoryGiBHours,
      double measuredGpuMemoryGiBHours,
      double coreHours,
      double memoryGiBHours,
      Double waitMaxSeconds,
      WaitHistogram waits) {}

  /**
   * The report over {@code [from, to)}, grouped by {@code by} ({@code labelKey} when by label): the
   * groups of {@code onlyOwner}'s jobs (null: everyone's) and everyone's total.
   */
  UsageReport report(
      Instant from,
      Instant to,
      UsageReport.By by,
      String byText,
      String labelKey,
      String onlyOwner);

  /**
   * Rolls up what ended since the last roll-up, towards {@code upTo}, by at most {@code step}.
   *
   * @return how far the roll-up has gone
   */
  Instant rollUpTo(Instant upTo, java.time.Duration step);

  /**
   * Adds to the roll-up the ends it passed before they were stored (committed more than the roll-up
   * duty's lag after their time), each once.
   *
   * @return how many ends it added
   */
  int rollUpLate();

  /** The rolled-up days from {@code fromDay} to {@code toDay}, excluded, one row per owner. */
  List<RolledUpDay> rolledUp(LocalDate fromDay, LocalDate toDay);
}
