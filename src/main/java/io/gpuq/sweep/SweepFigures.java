package io.gpuq.sweep;

import io.gpuq.job.JobState;
import java.util.List;
import java.util.Map;

/**
 * What the sweep meters show, read at once.
 *
 * @param trials per unfinished sweep, its trials per state (states without trials absent)
 * @param best per unfinished sweep with a reported metric, its best value by its goal
 * @param running the jobs running on this node
 */
public record SweepFigures(
    Map<String, Map<JobState, Long>> trials, Map<String, Double> best, List<RunningJob> running) {

  /** A running job's identity, for {@code gpuq_job_info}; {@code sweep} null for a plain job. */
  public record RunningJob(String jobId, String name, String owner, String sweep) {}

  public SweepFigures {
    trials = Map.copyOf(trials);
    best = Map.copyOf(best);
    running = List.copyOf(running);
  }
}
