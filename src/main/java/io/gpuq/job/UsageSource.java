package io.gpuq.job;

import java.time.Instant;
import java.util.List;

/**
 * What a usage report (issue 37) is computed from: the attempts that ended, and the jobs that
 * finished, in a time window. A port: the database store answers it from {@code job_attempts} and
 * {@code jobs}.
 */
public interface UsageSource {

  /**
   * One ended attempt's holdings.
   *
   * @param group the owner, or the value of the grouping label (null: the job has none)
   * @param gpuEquivalents whole-GPU equivalents it held: GPUs × (1, or its budget's share of a GPU)
   * @param gpuBudgetBytes its GPU-memory budget over all its GPUs
   * @param peakGpuBytes the most GPU memory measured on one of its GPUs, times its GPUs; 0
   *     unmeasured
   * @param cpus the cores it held
   * @param memoryBytes the host memory it held (0: none reserved)
   */
  record EndedAttempt(
      String owner,
      String group,
      Instant startedAt,
      Instant finishedAt,
      double gpuEquivalents,
      long gpuBudgetBytes,
      long peakGpuBytes,
      double cpus,
      long memoryBytes) {}

  /**
   * One job that finished: its final state and how long it waited to start first (null: it never
   * started).
   */
  record FinishedJob(
      String owner, String group, JobState state, Instant finishedAt, Long waitMillis) {}

  /**
   * What retention deleted, kept per UTC day and owner (issue 37): the figures of the attempts that
   * ended and the jobs that finished that day.
   */
  record RolledUpDay(
      java.time.LocalDate day,
      String owner,
      java.util.Map<JobState, Long> jobs,
      double gpuHours,
      double gpuMemoryGiBHours,
      double measuredGpuMemoryGiBHours,
      double coreHours,
      double memoryGiBHours,
      Double waitMaxSeconds) {}

  /** The rolled-up days from {@code fromDay} to {@code toDay}, excluded. */
  List<RolledUpDay> rolledUp(java.time.LocalDate fromDay, java.time.LocalDate toDay);

  /** Attempts that ended at or after {@code from} and before {@code to}. */
  List<EndedAttempt> attemptsEnded(Instant from, Instant to, String labelKey);

  /** Jobs that finished at or after {@code from} and before {@code to}. */
  List<FinishedJob> jobsFinished(Instant from, Instant to, String labelKey);
}
