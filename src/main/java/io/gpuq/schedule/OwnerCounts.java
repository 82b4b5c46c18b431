package io.gpuq.schedule;

import java.util.Map;

/**
 * How many jobs each owner has queued, over every node, for {@code GET /api/v1/owners} and the
 * {@code gpuq_owner_*} gauges: the one count the fair-share order does not read. What the owners'
 * running jobs hold comes from the pass's own query ({@code heldByOwner}), so that the report and
 * the limits count them by one rule. Written in SQL by {@code io.gpuq.storage.OwnerQueuedTable}.
 */
public interface OwnerCounts {

  /** Each owner with a QUEUED job, and how many; an owner with none is absent. */
  Map<String, Long> queuedByOwner();
}
