package io.gpuq.job;

import static org.assertj.core.api.Assertions.assertThat;

import io.gpuq.job.JobTransition.AttemptEffect;
import io.gpuq.job.JobTransition.JobField;
import io.gpuq.job.JobTransition.Value;
import java.util.Arrays;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

@DisplayName("What each transition sets and clears, and the SQL written from it")
class TransitionDescriptionTest {

  @ParameterizedTest
  @EnumSource(
      value = JobTransition.class,
      names = {"SUCCEED", "FAIL", "CANCEL"})
  void every_move_into_a_final_state_records_when_the_job_finished(JobTransition transition) {
    assertThat(transition.target().isTerminal()).isTrue();
    assertThat(transition.jobWrites()).containsEntry(JobField.FINISHED_AT, Value.NOW);
  }

  @ParameterizedTest
  @EnumSource(
      value = JobTransition.class,
      names = {"CANCEL_RUNNING", "PRUNE"})
  void a_move_that_stops_a_running_worker_leaves_the_end_to_its_last_process(
      JobTransition transition) {
    assertThat(transition.target().isTerminal()).isTrue();
    assertThat(transition.sources()).containsExactly(JobState.RUNNING);
    assertThat(transition.stopsWorker()).isTrue();
    assertThat(transition.jobWrites()).doesNotContainKey(JobField.FINISHED_AT);
    assertThat(transition.attemptWrites())
        .doesNotContainKey(JobTransition.AttemptField.FINISHED_AT)
        .containsEntry(JobTransition.AttemptField.OUTCOME, Value.ATTEMPT_OUTCOME);
  }

  @Test
  void a_start_clears_what_an_earlier_attempt_left_on_the_job_and_opens_an_attempt() {
    assertThat(JobTransition.START.jobWrites())
        .containsEntry(JobField.FAILURE_REASON, Value.NONE)
        .containsEntry(JobField.FAILURE_MESSAGE, Value.NONE)
        .containsEntry(JobField.EXIT_CODE, Value.NONE)
        .containsEntry(JobField.STARTED_AT, Value.NOW);
    assertThat(JobTransition.START.attemptEffect()).isEqualTo(AttemptEffect.OPENS);
  }

  @Test
  void a_requeue_forgets_where_the_last_attempt_ran_and_waits_from_now() {
    assertThat(JobTransition.REQUEUE_FOR_RETRY.jobWrites())
        .containsEntry(JobField.ATTEMPT, Value.NEXT_ATTEMPT)
        .containsEntry(JobField.PLACEMENT, Value.NONE)
        .containsEntry(JobField.NODE, Value.NONE)
        .containsEntry(JobField.STARTED_AT, Value.NONE)
        .containsEntry(JobField.QUEUED_AT, Value.NOW)
        .containsEntry(JobField.PEAK_GPU_MEMORY_BYTES, Value.NONE);
    assertThat(JobTransition.REQUEUE_FOR_RETRY.attemptOutcome()).isEqualTo(JobState.FAILED);
  }

  @Test
  void a_prune_ends_the_running_attempt_as_pruned() {
    assertThat(JobTransition.PRUNE.sources()).containsExactly(JobState.RUNNING);
    assertThat(JobTransition.PRUNE.attemptEffect()).isEqualTo(AttemptEffect.ENDS);
    assertThat(JobTransition.PRUNE.attemptOutcome()).isEqualTo(JobState.PRUNED);
  }

  @Test
  void only_the_moves_that_end_an_attempt_give_it_an_outcome() {
    Arrays.stream(JobTransition.values())
        .forEach(
            t ->
                assertThat(t.attemptOutcome() == null)
                    .as(t.name())
                    .isEqualTo(t.attemptEffect() == AttemptEffect.OPENS));
  }
}
