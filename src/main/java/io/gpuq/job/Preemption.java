package io.gpuq.job;

import java.time.Duration;
import java.util.Objects;

/**
 * Whether a job may be preempted (issue 35), and how: the signal its process tree gets, then
 * SIGKILL once {@code grace} has passed. A job that does not checkpoint is never preempted, so the
 * default is not preemptible.
 *
 * @param grace the time between the signal and SIGKILL; the operator's default ({@code
 *     gpuq.preemption.grace}) where the request names none
 */
public record Preemption(boolean preemptible, Duration grace, StopSignal signal) {

  /** The operator's default grace, until the operator says otherwise. */
  public static final Duration DEFAULT_GRACE = Duration.ofSeconds(60);

  /** Not preemptible, with the default grace and TERM: what a job that says nothing gets. */
  public static final Preemption NONE = new Preemption(false, DEFAULT_GRACE, StopSignal.TERM);

  public Preemption {
    Objects.requireNonNull(grace, "grace");
    Objects.requireNonNull(signal, "signal");
  }
}
