package io.gpuq.storage;

import io.gpuq.concurrency.TrialSlots;
import java.util.Collection;
import java.util.Map;

/**
 * The sweeps' limits on running trials ({@code sweeps.max_concurrent}), read where jobs are queued
 * and claimed; a fragment of {@link JobRepository}.
 */
interface TrialConcurrency {

  /**
   * Locks the rows of the limited sweeps that these jobs are trials of, {@code FOR UPDATE} in id
   * order, and counts their running trials. Two nodes claiming trials of one sweep thus take turns:
   * the second counts what the first started once it has committed.
   */
  Map<String, TrialSlots> lockTrialSlotsOf(Collection<String> jobIds);

  /** The limited sweeps among these, with their running trials now; nothing is locked. */
  Map<String, TrialSlots> trialSlots(Collection<String> sweepIds);

  /** The unfinished limited sweeps that have as many trials running as they may. */
  Map<String, TrialSlots> fullSweeps();
}
