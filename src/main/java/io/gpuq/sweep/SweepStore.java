package io.gpuq.sweep;

import io.gpuq.job.JobState;
import io.gpuq.job.NewJob;
import java.time.Instant;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.IntFunction;

/**
 * Where sweeps live, in the lifecycle's words: a sweep is created with its trials (queued jobs, in
 * the same transaction), read back with its trials' counts and its best trial, gets trials added
 * one by one (method external) until it is closed, or is cancelled with its unfinished trials. A
 * trial is a job like any other; this store writes it as the job store would.
 */
public interface SweepStore {

  /**
   * Stores a sweep and its trials, all or nothing.
   *
   * @throws SweepKeyTakenException when its owner already has a sweep with its idempotency key
   */
  void create(Sweep sweep, List<NewJob> trials);

  /**
   * {@link #create(Sweep, List)}, unless its trials would take the owner past {@code maxQueued}
   * queued jobs: counted in the same transaction, with the owner's row locked.
   *
   * @throws io.gpuq.job.TooManyQueuedJobsException nothing is stored then
   */
  default void create(Sweep sweep, List<NewJob> trials, long maxQueued) {
    create(sweep, trials);
  }

  /**
   * {@link #create(Sweep, List, long)}, with where its end is sent (issue 37), stored in the same
   * transaction. A store without notifications stores none.
   */
  default void create(
      Sweep sweep, List<NewJob> trials, long maxQueued, List<io.gpuq.job.NotifyTarget> notify) {
    create(sweep, trials, maxQueued);
  }

  Optional<Sweep> find(String id);

  /** How many of this owner's sweeps are not finished yet (neither done nor cancelled). */
  long countUnfinished(String owner);

  /** The sweep this owner created with this idempotency key. */
  Optional<Sweep> findByKey(String owner, String idempotencyKey);

  /**
   * One page of sweeps, newest first.
   *
   * @param owner only this owner's; null for everyone's
   * @param beforeId only sweeps older than this one; null from the newest
   */
  SweepPage page(String owner, String beforeId, int limit);

  /** Trials per state of each of these sweeps, every state present (0 when none). */
  Map<String, Map<JobState, Long>> trialCounts(Collection<String> sweepIds);

  /**
   * Each sweep's best trial in {@code scope} by its metric's goal (then by number), in one
   * statement; a sweep without a metric, or none of whose trials has a value in that scope, is
   * absent. A NaN or infinite value never wins.
   */
  Map<String, BestTrial> best(Collection<String> sweepIds, BestScope scope);

  /** Each sweep's best completed trial by its final value ({@link BestScope#LAST}). */
  default Map<String, BestTrial> best(Collection<String> sweepIds) {
    return best(sweepIds, BestScope.LAST);
  }

  /** One sweep's best trial, as {@link #best(Collection, BestScope)} finds it. */
  default Optional<BestTrial> best(String sweepId, BestScope scope) {
    return Optional.ofNullable(best(List.of(sweepId), scope).get(sweepId));
  }

  /** One sweep's best completed trial by its final value. */
  default Optional<BestTrial> best(String sweepId) {
    return best(sweepId, BestScope.LAST);
  }

  /** One page of a sweep's trials table. */
  TrialPage trials(TrialQuery query);

  /**
   * Adds one trial to an external sweep, numbered by the sweep's count of trials: the number is
   * taken under the sweep's row lock, so that trials added at once get distinct numbers.
   *
   * @param trialNumbered the trial's job, given its number; may throw to refuse it (nothing is
   *     stored then)
   * @return the job stored
   * @throws SweepNotFoundException when there is no such sweep
   * @throws SweepConflictException when the sweep is not external, closed, cancelled, or full
   */
  NewJob addTrial(String sweepId, IntFunction<NewJob> trialNumbered);

  /**
   * {@link #addTrial(String, IntFunction)}, unless the trial would take the sweep's owner past
   * {@code maxQueued} queued jobs.
   *
   * @throws io.gpuq.job.TooManyQueuedJobsException nothing is stored then
   */
  default NewJob addTrial(String sweepId, IntFunction<NewJob> trialNumbered, long maxQueued) {
    return addTrial(sweepId, trialNumbered);
  }

  /**
   * Says that no more trials will be added (method external); closing a closed sweep changes
   * nothing. A sweep whose trials have all ended is stamped finished in the same transaction, as
   * {@link #stampFinished(String, Instant)} stamps it ({@code now} when it has none).
   *
   * @return the sweep as it is then
   * @throws SweepConflictException when the sweep is not external, or cancelled
   */
  Sweep close(String sweepId, Instant now);

  /**
   * Cancels a sweep: stamps it cancelled (and finished) and cancels its queued and running trials,
   * as {@code JobStore.cancel} cancels a job: a stored fact that the node running a worker acts on.
   *
   * @return the ids of the trials that were running, whose workers are to be stopped
   * @throws SweepConflictException when the sweep has already finished
   */
  List<String> cancel(String sweepId, Instant now);

  /**
   * Stamps {@code finished_at} on every sweep that is done (closed, with no queued or running
   * trial) and not stamped yet: when its last trial ended ({@code now} for a sweep that has none).
   *
   * @return how many it stamped
   */
  int stampFinished(Instant now);

  /** Like {@link #stampFinished(Instant)}, for one sweep; the sweep as it is now. */
  Optional<Sweep> stampFinished(String sweepId, Instant now);

  /** Counts, per state, of one sweep's trials. */
  default Map<JobState, Long> trialCounts(String sweepId) {
    return trialCounts(List.of(sweepId)).get(sweepId);
  }

  /** A page of sweeps and where the next (older) one starts. */
  record SweepPage(List<Sweep> items, String nextBeforeId) {}

  /** A page of a trials table and the cursor of the next one, null on the last. */
  record TrialPage(List<TrialRow> items, TrialCursor next) {}
}
