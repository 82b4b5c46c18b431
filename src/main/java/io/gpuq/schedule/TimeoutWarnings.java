package io.gpuq.schedule;

import io.gpuq.job.TimeoutSignal;
import java.time.Instant;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The warnings before a timeout this node's workers asked for ({@code timeoutSignal}, issue 35):
 * each attempt's signal and when it is due; sent once, by {@link TimeoutDuty}.
 */
final class TimeoutWarnings {

  /** One attempt's warning. */
  record Warning(int attempt, int signal, Instant at) {}

  private final Map<String, Warning> due = new ConcurrentHashMap<>();

  /** The attempt of a job started at {@code startedAt} with this timeout gets its warning. */
  void register(
      String jobId, int attempt, Instant startedAt, java.time.Duration timeout, TimeoutSignal s) {
    if (s == null || timeout == null || startedAt == null) {
      return;
    }
    due.put(
        jobId,
        new Warning(attempt, s.signal().number(), startedAt.plus(timeout).minus(s.before())));
  }

  /** The warning of this job's attempt that is due at {@code now}, taken: it is sent only once. */
  Optional<Warning> takeDue(String jobId, int attempt, Instant now) {
    Warning warning = due.get(jobId);
    if (warning == null || warning.attempt() != attempt || now.isBefore(warning.at())) {
      return Optional.empty();
    }
    return due.remove(jobId, warning) ? Optional.of(warning) : Optional.empty();
  }
}
