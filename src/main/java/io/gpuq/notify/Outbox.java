package io.gpuq.notify;

import io.gpuq.job.NotifyEvent;
import io.gpuq.job.NotifyFormat;
import io.gpuq.job.NotifyTarget;
import io.gpuq.notify.NotificationBody.JobFacts;
import java.time.Instant;
import java.util.List;

/**
 * Where notifications wait, and are claimed and settled (issue 37; {@code
 * storage.NotificationTable}). A row is added WAITING with its job or sweep; it becomes DUE when
 * its event is found committed, then DELIVERED or GAVE_UP; or SKIPPED when its event can no longer
 * happen.
 */
public interface Outbox {

  /** A waiting row whose job has moved so that its event happened, or can no longer happen. */
  record JobEvent(String id, NotifyEvent event, NotifyFormat format, JobFacts job) {}

  /** A waiting row whose sweep has ended. */
  record SweepEvent(String id, NotifyEvent event, NotifyFormat format, String sweepId) {}

  /** A row to send: its attempts so far, and when its event happened. */
  record Due(String id, String url, String body, int attempts, Instant happenedAt) {}

  /**
   * Adds the rows of a new job's or sweep's targets, WAITING, in the caller's transaction.
   *
   * @param jobId null for a sweep's
   * @param sweepId null for a job's
   */
  void add(String jobId, String sweepId, String owner, List<NotifyTarget> targets, Instant now);

  /** Waiting rows of jobs that have started or ended, oldest first. */
  List<JobEvent> jobEvents(int limit);

  /** Waiting rows of sweeps that have ended. */
  List<SweepEvent> sweepEvents(int limit);

  /** WAITING to DUE now, with its body; false when another node did it first. */
  boolean makeDue(String id, String body, Instant now);

  /** WAITING to SKIPPED; false when another node did it first. */
  boolean skip(String id, Instant now);

  /** DUE rows whose time has come and that no node holds, oldest due first. */
  List<Due> due(Instant now, int limit);

  /**
   * Holds a due row for this node until {@code until} and counts the try: false when another node
   * holds it, or it was settled.
   */
  boolean claim(String id, Instant now, Instant until);

  void delivered(String id, Instant now);

  /** Due again at {@code next}, released, with the error that failed this try. */
  void retryAt(String id, Instant next, String error);

  void gaveUp(String id, Instant now, String error);

  /** Deletes settled rows (delivered, given up, skipped) settled before {@code before}. */
  int deleteSettledBefore(Instant before);

  /** The last error of this job's notifications that are not delivered, or null (its page). */
  String lastErrorOf(String jobId);

  /**
   * Where one of a job's notifications stands, for its owner: its event, status (WAITING, DUE,
   * DELIVERED, GAVE_UP, SKIPPED), tries, and the last try's error (null once delivered).
   */
  record Standing(
      String id,
      NotifyEvent event,
      String status,
      int attempts,
      Instant happenedAt,
      Instant settledAt,
      String lastError) {}

  /** This job's notifications, in the order they were asked for. */
  List<Standing> standingsOf(String jobId);

  /** This sweep's notifications, in the order they were asked for. */
  List<Standing> standingsOfSweep(String sweepId);
}
