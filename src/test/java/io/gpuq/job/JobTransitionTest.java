package io.gpuq.job;

import static io.gpuq.job.JobState.CANCELLED;
import static io.gpuq.job.JobState.FAILED;
import static io.gpuq.job.JobState.PRUNED;
import static io.gpuq.job.JobState.QUEUED;
import static io.gpuq.job.JobState.RUNNING;
import static io.gpuq.job.JobState.SUCCEEDED;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.EnumSet;
import java.util.Set;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.EnumSource;

@DisplayName("The job lifecycle")
class JobTransitionTest {

  @ParameterizedTest(name = "{0} --{1}--> {2}")
  @CsvSource({
    "QUEUED,  START,             RUNNING",
    "RUNNING, SUCCEED,           SUCCEEDED",
    "RUNNING, FAIL,              FAILED",
    "RUNNING, REQUEUE_FOR_RETRY, QUEUED",
    "QUEUED,  CANCEL,            CANCELLED",
    "RUNNING, CANCEL_RUNNING,    CANCELLED",
    "RUNNING, PRUNE,             PRUNED",
    "QUEUED,  CANCEL_UNMET,      CANCELLED",
  })
  void allows_exactly_these_moves(JobState from, JobTransition transition, JobState to) {
    assertThat(transition.applyTo("j1", from)).isEqualTo(to);
  }

  @Test
  void forbids_every_other_move() {
    Set<String> allowed =
        Set.of(
            "QUEUED START",
            "RUNNING SUCCEED",
            "RUNNING FAIL",
            "RUNNING REQUEUE_FOR_RETRY",
            "RUNNING REQUEUE_AFTER_PREEMPTION",
            "QUEUED CANCEL",
            "QUEUED CANCEL_UNMET",
            "RUNNING CANCEL_RUNNING",
            "RUNNING PRUNE");
    int forbidden = 0;
    for (JobState from : JobState.values()) {
      for (JobTransition t : JobTransition.values()) {
        if (!allowed.contains(from + " " + t)) {
          forbidden++;
          assertThat(t.isAllowedFrom(from)).as(from + " " + t).isFalse();
          assertThatThrownBy(() -> t.applyTo("j1", from))
              .isInstanceOf(IllegalTransitionException.class)
              .hasMessageContaining("j1")
              .hasMessageContaining(from.name());
        }
      }
    }
    assertThat(forbidden)
        .isEqualTo(JobState.values().length * JobTransition.values().length - allowed.size());
  }

  @ParameterizedTest
  @EnumSource(
      value = JobState.class,
      names = {"SUCCEEDED", "FAILED", "CANCELLED", "PRUNED"})
  void terminal_states_have_no_way_out(JobState terminal) {
    assertThat(terminal.isTerminal()).isTrue();
    for (JobTransition t : JobTransition.values()) {
      assertThat(t.isAllowedFrom(terminal)).isFalse();
    }
  }

  @Test
  void only_queued_and_running_are_not_terminal() {
    EnumSet<JobState> live = EnumSet.noneOf(JobState.class);
    for (JobState s : JobState.ofJobs()) {
      if (!s.isTerminal()) {
        live.add(s);
      }
    }
    assertThat(live).containsExactly(QUEUED, RUNNING);
    assertThat(EnumSet.complementOf(live))
        .containsExactly(SUCCEEDED, FAILED, CANCELLED, PRUNED, JobState.PREEMPTED);
    assertThat(JobState.PREEMPTED.isTerminal()).isFalse();
    assertThat(JobState.PREEMPTED.isJobState()).isFalse();
  }
}
