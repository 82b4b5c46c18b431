package io.gpuq.storage;

import java.time.Instant;
import java.util.Collection;
import java.util.Map;

/**
 * Each owner's row, the lock that makes the checks of their limits exact between nodes; a fragment
 * of {@link JobRepository}.
 */
interface OwnerRows {

  /**
   * Locks these owners' rows ({@code owner_usage}, created if missing) until the transaction ends,
   * in owner order, so that two transactions never wait on each other in a circle: a submission and
   * a claim for one owner take turns, on every node, and each counts what the other committed.
   */
  void lockOwners(Collection<String> owners, Instant now);

  /** The queued jobs of each of these owners (an owner with none is left out). */
  Map<String, Long> queuedCountOf(Collection<String> owners);
}
