package io.gpuq.job;

import java.util.Locale;

/** Why an attempt ended PREEMPTED (issue 35); its wire name is the metric's {@code reason}. */
public enum PreemptReason {
  /** Its place was given to an owner below their share. */
  FAIR_SHARE,
  /** It exited with {@code GPUQ_REQUEUE_EXIT_CODE}. */
  REQUEUE_EXIT,
  /** Its owner or an admin asked ({@code POST /api/v1/jobs/{id}/requeue}). */
  MANUAL;

  public String wireName() {
    return name().toLowerCase(Locale.ROOT);
  }
}
