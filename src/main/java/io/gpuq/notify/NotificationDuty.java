package io.gpuq.notify;

import io.gpuq.duty.FixedDelayDuty;
import io.gpuq.job.JobState;
import io.gpuq.job.NotifyEvent;
import io.gpuq.notify.NotificationBody.JobFacts;
import io.gpuq.notify.NotificationBody.SweepFacts;
import io.gpuq.notify.Outbox.Due;
import io.gpuq.notify.Outbox.JobEvent;
import io.gpuq.notify.Outbox.SweepEvent;
import io.gpuq.sweep.BestTrial;
import io.gpuq.sweep.Sweep;
import io.gpuq.sweep.SweepStore;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletionException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Sends notifications (issue 37), on every node. Each run: the waiting rows whose job started or
 * ended (or whose sweep ended) become due, their body written then, once, from what the database
 * holds; then the due rows are claimed, each by one node (a conditional update), and POSTed. The
 * POSTs run on the sender's own threads: a run waits for none of them, so a slow or dead receiver
 * delays nothing else. A row whose try fails is due again after the backoff, until the backoff's
 * bound has passed since the event: then it is given up, its last error kept. A node that dies
 * while it holds a row leaves it to another once the claim ({@code timeout} and a margin) runs out:
 * delivered at least once.
 */
public final class NotificationDuty extends FixedDelayDuty {

  private static final Logger log = LoggerFactory.getLogger(NotificationDuty.class);

  /** Rows read per run, of each kind. */
  private static final int PAGE = 200;

  /** POSTs in flight at once from one node; more wait for a later run. */
  static final int MAX_IN_FLIGHT = 32;

  /** Settled rows are kept this long, for the job's page and for an operator to look. */
  static final Duration KEEP_SETTLED = Duration.ofDays(7);

  /** How often settled rows past {@link #KEEP_SETTLED} are deleted: not at every run. */
  static final Duration CLEANUP_INTERVAL = Duration.ofMinutes(10);

  /** An outcome, as the metric counts it. */
  public enum Outcome {
    DELIVERED,
    FAILED,
    GAVE_UP
  }

  private final Outbox outbox;
  private final SweepStore sweeps;
  private final Sender sender;
  private final Backoff backoff;
  private final Duration claim;
  private final Consumer<Outcome> counted;
  private final Clock clock;
  private final AtomicInteger inFlight = new AtomicInteger();
  private Instant lastCleanup;

  /**
   * @param claim how long a node holds a row it sends: longer than a POST may take
   * @param counted told each try's outcome (the {@code gpuq_notifications_total} counter)
   */
  public NotificationDuty(
      Outbox outbox,
      SweepStore sweeps,
      Sender sender,
      Backoff backoff,
      Duration claim,
      Consumer<Outcome> counted,
      Clock clock,
      Duration interval) {
    super("notifications", interval);
    this.outbox = outbox;
    this.sweeps = sweeps;
    this.sender = sender;
    this.backoff = backoff;
    this.claim = claim;
    this.counted = counted;
    this.clock = clock;
  }

  @Override
  public void runOnce() {
    for (JobEvent event : outbox.jobEvents(PAGE)) {
      settle(event);
    }
    for (SweepEvent event : outbox.sweepEvents(PAGE)) {
      settle(event);
    }
    send();
    Instant now = clock.instant();
    if (lastCleanup == null || !now.isBefore(lastCleanup.plus(CLEANUP_INTERVAL))) {
      lastCleanup = now;
      outbox.deleteSettledBefore(now.minus(KEEP_SETTLED));
    }
  }

  /** Whether the job's state means the row's event happened, cannot happen yet, or never will. */
  static Optional<Boolean> happened(NotifyEvent event, JobState state) {
    boolean ended = state.isTerminal();
    return switch (event) {
      // Read only once the job has started (it runs, or has an attempt).
      case STARTED -> Optional.of(true);
      case ENDED -> ended ? Optional.of(true) : Optional.empty();
      case FAILED ->
          ended
              ? Optional.of(state != JobState.SUCCEEDED && state != JobState.PRUNED)
              : Optional.empty();
      case DONE -> Optional.of(false);
    };
  }

  private void settle(JobEvent row) {
    JobFacts job = row.job();
    Optional<Boolean> happened = happened(row.event(), JobState.valueOf(job.state()));
    if (happened.isEmpty()) {
      return;
    }
    Instant now = clock.instant();
    if (happened.get()) {
      outbox.makeDue(
          row.id(), NotificationBody.ofJob(row.id(), row.event(), now, job, row.format()), now);
    } else {
      outbox.skip(row.id(), now);
    }
  }

  private void settle(SweepEvent row) {
    Instant now = clock.instant();
    Optional<Sweep> found = sweeps.find(row.sweepId());
    if (found.isEmpty()) {
      outbox.skip(row.id(), now);
      return;
    }
    Sweep sweep = found.get();
    Map<JobState, Long> counts = sweeps.trialCounts(sweep.id());
    Map<String, Long> byState = new LinkedHashMap<>();
    counts.forEach(
        (state, n) -> {
          if (n > 0) {
            byState.put(state.name(), n);
          }
        });
    BestTrial best = sweep.metric() == null ? null : sweeps.best(sweep.id()).orElse(null);
    SweepFacts facts =
        new SweepFacts(
            sweep.id(),
            sweep.name(),
            sweep.owner(),
            sweep.state(counts).name(),
            byState,
            best == null ? null : best.jobId(),
            best == null ? null : best.trial(),
            best == null ? null : best.value());
    outbox.makeDue(
        row.id(), NotificationBody.ofSweep(row.id(), row.event(), now, facts, row.format()), now);
  }

  private void send() {
    Instant now = clock.instant();
    int room = MAX_IN_FLIGHT - inFlight.get();
    if (room <= 0) {
      return;
    }
    for (Due due : outbox.due(now, Math.min(room, PAGE))) {
      if (!outbox.claim(due.id(), now, now.plus(claim))) {
        continue;
      }
      int failures = due.attempts() + 1;
      inFlight.incrementAndGet();
      try {
        sender
            .post(due.url(), due.id(), due.body())
            .whenComplete(
                (status, error) -> {
                  try {
                    settleTry(due, failures, status, error);
                  } catch (RuntimeException e) {
                    // The claim runs out and another run tries again.
                    log.warn("notification {}: its try's outcome was not stored", due.id(), e);
                  } finally {
                    inFlight.decrementAndGet();
                  }
                });
      } catch (RuntimeException e) {
        inFlight.decrementAndGet();
        settleTry(due, failures, null, e);
      }
    }
  }

  private void settleTry(Due due, int tries, Integer status, Throwable error) {
    Instant now = clock.instant();
    if (error == null && status >= 200 && status < 300) {
      outbox.delivered(due.id(), now);
      counted.accept(Outcome.DELIVERED);
      return;
    }
    String why = error == null ? answer(status) : describe(error);
    Instant next = backoff.nextTry(due.happenedAt() == null ? now : due.happenedAt(), tries, now);
    if (next == null) {
      outbox.gaveUp(due.id(), now, why);
      counted.accept(Outcome.GAVE_UP);
      log.warn("notification {} given up after {} tries: {}", due.id(), tries, why);
    } else {
      outbox.retryAt(due.id(), next, why);
      counted.accept(Outcome.FAILED);
      log.info("notification {} try {} failed ({}); next at {}", due.id(), tries, why, next);
    }
  }

  private static String answer(int status) {
    return status >= 300 && status < 400
        ? "the receiver answered " + status + " (a redirect, which is not followed)"
        : "the receiver answered " + status;
  }

  private static String describe(Throwable error) {
    Throwable cause =
        error instanceof CompletionException && error.getCause() != null ? error.getCause() : error;
    return cause.getClass().getSimpleName()
        + (cause.getMessage() == null ? "" : ": " + cause.getMessage());
  }
}
