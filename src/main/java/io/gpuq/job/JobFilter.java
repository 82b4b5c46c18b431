package io.gpuq.job;

import java.util.Map;

/**
 * Which jobs a listing shows.
 *
 * @param owner only this owner's jobs, or null for all (admins)
 * @param state only jobs in this state, or null
 * @param labels jobs carrying all these labels
 * @param beforeId only jobs older than this id (the cursor), or null
 * @param limit at most this many
 */
public record JobFilter(
    String owner, JobState state, Map<String, String> labels, String beforeId, int limit) {

  public JobFilter {
    labels = Map.copyOf(labels);
  }
}
