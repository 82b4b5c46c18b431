package io.gpuq.sweeprun;

import io.gpuq.job.JobState;
import io.gpuq.sweep.BestTrial;
import io.gpuq.sweep.Sweep;
import io.gpuq.sweep.SweepState;
import java.util.Map;
import java.util.Optional;

/** A sweep as its view shows it: its row, its state, its trials per state and its best trial. */
public record SweepSummary(
    Sweep sweep, SweepState state, Map<JobState, Long> trials, Optional<BestTrial> best) {

  public long total() {
    return trials.values().stream().mapToLong(Long::longValue).sum();
  }
}
