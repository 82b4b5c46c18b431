package io.gpuq.job;

import static io.gpuq.job.JobSpecs.aSpec;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.gpuq.placement.PlacedGpu;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

@DisplayName("A job's history")
class JobTest {

  private static final Instant T0 = Instant.parse("2026-11-29T12:00:00Z");
  private static final long GIB = 1L << 30;
  private static final JobPlacement ON_GPU_0 =
      new JobPlacement("node-1", List.of(new PlacedGpu(0, "GPU-0", 6 * GIB, 16 * GIB)), 0.375);

  @Test
  void a_successful_first_attempt_ends_the_job() {
    Job job = Job.submit("j1", "alice", aSpec().build(), null, T0);

    job.start(ON_GPU_0, T0.plusSeconds(1));
    job.succeed(0, T0.plusSeconds(5));

    assertThat(job.state()).isEqualTo(JobState.SUCCEEDED);
    assertThat(job.finishedAt()).isEqualTo(T0.plusSeconds(5));
    assertThat(job.attempts())
        .singleElement()
        .satisfies(
            a -> {
              assertThat(a.outcome()).isEqualTo(JobState.SUCCEEDED);
              assertThat(a.budgetBytes()).isEqualTo(6 * GIB);
            });
  }

  @Test
  void an_out_of_memory_failure_with_attempts_left_requeues_with_a_grown_budget() {
    Job job =
        Job.submit(
            "j1", "alice", aSpec().gpuMemory(4 * GIB).attempts(3).growth(1.5).build(), null, T0);
    job.start(ON_GPU_0, T0);

    JobState next =
        job.failAttempt(
            FailureReason.OUT_OF_MEMORY, "CUDA out of memory", 1, 16 * GIB, T0.plusSeconds(9));

    assertThat(next).isEqualTo(JobState.QUEUED);
    assertThat(job.attempt()).isEqualTo(2);
    assertThat(job.gpuMemoryBytes()).isEqualTo(6 * GIB);
    assertThat(job.requestedGpuMemoryBytes()).isEqualTo(4 * GIB);
    assertThat(job.placement()).isNull();
    assertThat(job.queuedAt()).isEqualTo(T0.plusSeconds(9));
    assertThat(job.attempts())
        .singleElement()
        .satisfies(
            a -> {
              assertThat(a.failureReason()).isEqualTo(FailureReason.OUT_OF_MEMORY);
              assertThat(a.outcome()).isEqualTo(JobState.FAILED);
            });
  }

  @Test
  void a_grown_budget_is_capped_at_the_gpu() {
    Job job =
        Job.submit(
            "j1", "alice", aSpec().gpuMemory(12 * GIB).attempts(2).growth(2).build(), null, T0);
    job.start(ON_GPU_0, T0);

    job.failAttempt(FailureReason.OVER_BUDGET, "over", null, 16 * GIB, T0);

    assertThat(job.gpuMemoryBytes()).isEqualTo(16 * GIB);
  }

  @Test
  void a_fraction_grows_up_to_the_whole_gpu() {
    Job job =
        Job.submit("j1", "alice", aSpec().fraction(0.75).attempts(2).growth(1.5).build(), null, T0);
    job.start(ON_GPU_0, T0);

    job.failAttempt(FailureReason.OUT_OF_MEMORY, "oom", 1, 0, T0);

    assertThat(job.gpuFraction()).isEqualTo(1.0);
    assertThat(job.requestedGpuFraction()).isEqualTo(0.75);
  }

  @Test
  void a_host_out_of_memory_failure_grows_the_host_memory_not_the_gpu_budget() {
    Job job =
        Job.submit(
            "j1",
            "alice",
            aSpec().gpuMemory(4 * GIB).host(2, GIB).attempts(2).growth(3).build(),
            null,
            T0);
    job.start(ON_GPU_0, T0);

    assertThat(job.failAttempt(FailureReason.HOST_OUT_OF_MEMORY, "capped", 137, 16 * GIB, T0))
        .isEqualTo(JobState.QUEUED);

    assertThat(job.host()).isEqualTo(new HostResources(2, 3 * GIB));
    assertThat(job.requestedMemoryBytes()).isEqualTo(GIB);
    assertThat(job.gpuMemoryBytes()).isEqualTo(4 * GIB);
  }

  @Test
  void a_gpu_out_of_memory_failure_leaves_the_host_memory_as_it_is() {
    Job job =
        Job.submit(
            "j1",
            "alice",
            aSpec().gpuMemory(4 * GIB).host(1, GIB).attempts(2).growth(2).build(),
            null,
            T0);
    job.start(ON_GPU_0, T0);

    job.failAttempt(FailureReason.OUT_OF_MEMORY, "oom", 1, 16 * GIB, T0);

    assertThat(job.host().memoryBytes()).isEqualTo(GIB);
  }

  @Test
  void an_ordinary_failure_is_retried_without_growth() {
    Job job = Job.submit("j1", "alice", aSpec().gpuMemory(4 * GIB).attempts(2).build(), null, T0);
    job.start(ON_GPU_0, T0);

    assertThat(job.failAttempt(FailureReason.EXIT_CODE, "exited with code 1", 1, 16 * GIB, T0))
        .isEqualTo(JobState.QUEUED);
    assertThat(job.gpuMemoryBytes()).isEqualTo(4 * GIB);
  }

  @Test
  void the_last_attempt_fails_the_job_and_launch_errors_are_never_retried() {
    Job last = Job.submit("j1", "alice", aSpec().attempts(1).build(), null, T0);
    last.start(ON_GPU_0, T0);
    assertThat(last.failAttempt(FailureReason.EXIT_CODE, "exited with code 2", 2, 0, T0))
        .isEqualTo(JobState.FAILED);
    assertThat(last.failureReason()).isEqualTo(FailureReason.EXIT_CODE);
    assertThat(last.exitCode()).isEqualTo(2);

    Job unlaunchable = Job.submit("j2", "alice", aSpec().attempts(5).build(), null, T0);
    unlaunchable.start(ON_GPU_0, T0);
    assertThat(unlaunchable.failAttempt(FailureReason.LAUNCH_ERROR, "no such program", -1, 0, T0))
        .isEqualTo(JobState.FAILED);
  }

  @Test
  void an_attempt_whose_exit_code_could_not_be_written_is_never_run_again() {
    Job job = Job.submit("j1", "alice", aSpec().attempts(5).build(), null, T0);
    job.start(ON_GPU_0, T0);

    JobState after =
        job.failAttempt(FailureReason.EXIT_UNRECORDED, "no space for its exit code", null, 0, T0);

    assertThat(after).isEqualTo(JobState.FAILED);
    assertThat(job.attempt()).isEqualTo(1);
    assertThat(job.failureReason()).isEqualTo(FailureReason.EXIT_UNRECORDED);
  }

  @Test
  void cancelling_closes_the_open_attempt_and_a_later_exit_only_keeps_its_code() {
    Job job = Job.submit("j1", "alice", aSpec().build(), null, T0);
    job.start(ON_GPU_0, T0);

    job.cancel(T0.plusSeconds(3));
    assertThat(job.finishedAt()).isNull();
    job.recordStoppedEnd(143, T0.plusSeconds(5));

    assertThat(job.state()).isEqualTo(JobState.CANCELLED);
    assertThat(job.exitCode()).isEqualTo(143);
    assertThat(job.attempts().get(0).outcome()).isEqualTo(JobState.CANCELLED);
    // Issue 34: finished when its last process was gone, not at the cancel.
    assertThat(job.finishedAt()).isEqualTo(T0.plusSeconds(5));
    assertThat(job.attempts().get(0).finishedAt()).isEqualTo(T0.plusSeconds(5));
  }

  @Test
  void an_illegal_move_is_refused_and_changes_nothing() {
    Job job = Job.submit("j1", "alice", aSpec().build(), null, T0);

    assertThatThrownBy(() -> job.succeed(0, T0)).isInstanceOf(IllegalTransitionException.class);
    assertThat(job.state()).isEqualTo(JobState.QUEUED);
    assertThat(job.attempts()).isEmpty();
  }

  @Test
  void the_peak_is_the_largest_observation() {
    Job job = Job.submit("j1", "alice", aSpec().build(), null, T0);
    job.start(ON_GPU_0, T0);

    job.observeGpuMemory(3 * GIB);
    job.observeGpuMemory(5 * GIB);
    job.observeGpuMemory(4 * GIB);

    assertThat(job.peakGpuMemoryBytes()).isEqualTo(5 * GIB);
    assertThat(job.attempts().get(0).peakGpuMemoryBytes()).isEqualTo(5 * GIB);
  }

  @Test
  @DisplayName(
      "the requeue exit code requeues up to max-requeues times, and a requeue uses up no retry"
          + " (issue 35)")
  void requeue_exit_code_and_retries() {
    Job job = Job.submit("j1", "alice", aSpec().attempts(2).build(), null, T0);
    AttemptOutcome code85 = new AttemptOutcome(FailureReason.EXIT_CODE, "exited with code 85", 85);

    job.start(ON_GPU_0, T0);
    job.endAttempt(new AttemptEnd("j1", 1, code85, 0, T0.plusSeconds(1), 85, 1));
    assertThat(job.state()).isEqualTo(JobState.QUEUED);
    assertThat(job.requeues()).isEqualTo(1);
    assertThat(job.attempts().get(0).outcome()).isEqualTo(JobState.PREEMPTED);

    // Past max-requeues (1), 85 is an ordinary failure: with 2 attempts, one retry is left.
    job.start(ON_GPU_0, T0.plusSeconds(2));
    job.endAttempt(new AttemptEnd("j1", 2, code85, 0, T0.plusSeconds(3), 85, 1));
    assertThat(job.state()).isEqualTo(JobState.QUEUED);
    assertThat(job.attempts().get(1).outcome()).isEqualTo(JobState.FAILED);

    job.start(ON_GPU_0, T0.plusSeconds(4));
    job.endAttempt(new AttemptEnd("j1", 3, code85, 0, T0.plusSeconds(5), 85, 1));
    assertThat(job.state()).isEqualTo(JobState.FAILED);
    assertThat(job.attempt()).isEqualTo(3);
  }

  @Test
  @DisplayName("a job marked for preemption ends PREEMPTED even when it exits 0, and only once")
  void preempted_whatever_the_exit_code() {
    Job job = Job.submit("j1", "alice", aSpec().build(), null, T0);
    job.start(ON_GPU_0, T0);

    assertThat(job.markPreempting(1, PreemptReason.FAIR_SHARE, "j2")).isTrue();
    assertThat(job.markPreempting(1, PreemptReason.MANUAL, null)).isFalse();
    job.endAttempt(new AttemptEnd("j1", 1, AttemptOutcome.succeeded(), 0, T0.plusSeconds(9)));

    assertThat(job.state()).isEqualTo(JobState.QUEUED);
    assertThat(job.attempt()).isEqualTo(2);
    assertThat(job.preemptReason()).isEmpty();
    assertThat(job.preemptedFor()).isNull();
    assertThat(job.attempts().get(0).outcome()).isEqualTo(JobState.PREEMPTED);
    assertThat(job.attempts().get(0).failureMessage())
        .isEqualTo("preempted for another owner's job (fair share)");
    assertThat(job.markPreempting(2, PreemptReason.MANUAL, null)).isFalse();
  }
}
