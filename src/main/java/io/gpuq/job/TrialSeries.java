package io.gpuq.job;

import java.time.Instant;
import java.util.List;

/**
 * One trial of a sweep with the values of the sweep's metric it reported, in the order gpuq read
 * them: what the early-stopping rules judge. A point without the metric is left out; a NaN or
 * infinite value reads as NaN.
 */
public record TrialSeries(
    String jobId, int trial, JobState state, String node, List<Value> values) {

  public TrialSeries {
    values = List.copyOf(values);
  }

  /** One reported value of the metric: its step, and when gpuq read it. */
  public record Value(long step, double value, Instant at) {}
}
