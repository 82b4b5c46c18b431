package io.gpuq.sweep;

import static org.assertj.core.api.Assertions.assertThat;

import io.gpuq.job.JobState;
import java.time.Instant;
import java.util.EnumMap;
import java.util.Map;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

@DisplayName("A sweep's state")
class SweepStateTest {

  private static final Instant T0 = Instant.parse("2026-12-01T12:00:00Z");

  private static Sweep sweep(boolean closed, Instant cancelledAt) {
    return new Sweep(
        "01JD5R0000000000000000SWEEP",
        "alice",
        "lr",
        closed ? "grid" : "external",
        "{}",
        null,
        null,
        null,
        null,
        2,
        closed,
        cancelledAt,
        null,
        T0,
        null);
  }

  private static Map<JobState, Long> trials(JobState... states) {
    Map<JobState, Long> counts = new EnumMap<>(JobState.class);
    for (JobState state : JobState.ofJobs()) {
      counts.put(state, 0L);
    }
    for (JobState state : states) {
      counts.merge(state, 1L, Long::sum);
    }
    return counts;
  }

  @Test
  void is_running_while_a_trial_is_queued_or_running() {
    assertThat(sweep(true, null).state(trials(JobState.SUCCEEDED, JobState.QUEUED)))
        .isEqualTo(SweepState.RUNNING);
    assertThat(sweep(true, null).state(trials(JobState.FAILED, JobState.RUNNING)))
        .isEqualTo(SweepState.RUNNING);
  }

  @Test
  void is_done_once_closed_and_every_trial_has_ended() {
    assertThat(sweep(true, null).state(trials(JobState.SUCCEEDED, JobState.CANCELLED)))
        .isEqualTo(SweepState.DONE);
  }

  @Test
  void an_open_external_sweep_runs_on_with_every_trial_ended_as_more_may_come() {
    assertThat(sweep(false, null).state(trials(JobState.SUCCEEDED))).isEqualTo(SweepState.RUNNING);
    assertThat(sweep(false, null).state(trials())).isEqualTo(SweepState.RUNNING);
  }

  @Test
  void is_cancelled_once_cancelled_whatever_its_trials() {
    assertThat(sweep(true, T0).state(trials(JobState.RUNNING))).isEqualTo(SweepState.CANCELLED);
    assertThat(sweep(false, T0).state(trials())).isEqualTo(SweepState.CANCELLED);
  }
}
