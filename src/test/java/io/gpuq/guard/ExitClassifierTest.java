package io.gpuq.guard;

import static org.assertj.core.api.Assertions.assertThat;

import io.gpuq.job.AttemptOutcome;
import io.gpuq.job.FailureReason;
import io.gpuq.job.JobPlacement;
import io.gpuq.launch.StopReason;
import io.gpuq.launch.WorkerExit;
import io.gpuq.launch.WorkerGroupEnd;
import io.gpuq.placement.PlacedGpu;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

@DisplayName("A failure says why, in numbers")
class ExitClassifierTest {

  private static final long MIB = 1L << 20;
  private static final long GIB = 1L << 30;
  private static final String TORCH_OOM =
      "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB.";

  private final ExitClassifier classifier = new ExitClassifier(new OomRecognizer());

  private static JobPlacement onGpus(long budget, int... indexes) {
    List<PlacedGpu> gpus =
        java.util.Arrays.stream(indexes)
            .mapToObj(i -> new PlacedGpu(i, "GPU-" + i, budget, 16 * GIB))
            .toList();
    return new JobPlacement("node-1", gpus, 0.1);
  }

  private static WorkerExit stopped(StopReason reason, String detail) {
    return new WorkerExit("job", 1, 42, 143, reason, detail, null, WorkerGroupEnd.NONE);
  }

  @Test
  void over_budget_gives_what_it_used_on_which_gpu_against_its_budget_and_tolerance() {
    String words = MemoryWords.overBudget(1, 1395 * MIB, GIB, 64 * MIB);

    assertThat(words)
        .isEqualTo("it used 1.36GiB on GPU 1, over its budget of 1GiB (+64MiB tolerance)");

    AttemptOutcome outcome =
        classifier.classify(stopped(StopReason.OVER_BUDGET, words), "Terminated\n");
    assertThat(outcome.failureReason()).isEqualTo(FailureReason.OVER_BUDGET);
    assertThat(outcome.message())
        .isEqualTo("stopped: it used 1.36GiB on GPU 1, over its budget of 1GiB (+64MiB tolerance)");
    assertThat(outcome.exitCode()).isEqualTo(143);
  }

  @Test
  void a_stop_without_numbers_still_says_why_in_words() {
    assertThat(ExitClassifier.stopWords(stopped(StopReason.OVER_BUDGET, null)))
        .isEqualTo("stopped: it used more GPU memory than its budget");
    assertThat(ExitClassifier.stopWords(stopped(StopReason.CANCELLED, null)))
        .isEqualTo("stopped: cancelled by the user");
    assertThat(ExitClassifier.stopWords(stopped(StopReason.TIMEOUT, null)))
        .isEqualTo("stopped: it ran past its timeout");
    assertThat(ExitClassifier.stopWords(stopped(StopReason.PRUNED, null)))
        .isEqualTo("stopped: pruned by the sweep's early-stopping rule");
    assertThat(ExitClassifier.stopWords(stopped(StopReason.STALE, null)))
        .isEqualTo("stopped: its job was given to another node");
    assertThat(
            classifier
                .classify(stopped(StopReason.TIMEOUT, "it ran past its timeout of PT2H"), "")
                .message())
        .isEqualTo("stopped: it ran past its timeout of PT2H");
  }

  @Test
  void out_of_memory_gives_the_attempts_budget_its_gpu_and_its_measured_peak() {
    WorkerExit exit = new WorkerExit("job", 1, 42, 1, null);

    AttemptOutcome outcome = classifier.classify(exit, TORCH_OOM, onGpus(GIB, 0), () -> 980 * MIB);

    assertThat(outcome.failureReason()).isEqualTo(FailureReason.OUT_OF_MEMORY);
    assertThat(outcome.message())
        .startsWith("exited with code 1; its budget was 1GiB on GPU 0 (peak measured: 980MiB); ")
        .endsWith(TORCH_OOM);
  }

  @Test
  void out_of_memory_on_several_gpus_and_never_measured_names_each_gpu_and_no_peak() {
    WorkerExit exit = new WorkerExit("job", 1, 42, 1, null);

    AttemptOutcome outcome =
        classifier.classify(exit, TORCH_OOM, onGpus(1536 * MIB, 2, 3), () -> null);

    assertThat(outcome.message())
        .startsWith("exited with code 1; its budget was 1.5GiB on each of GPUs 2, 3; GPU out");
  }

  @Test
  void the_peak_is_asked_for_only_when_it_is_an_out_of_memory_failure() {
    WorkerExit exit = new WorkerExit("job", 1, 42, 1, null);

    AttemptOutcome outcome =
        classifier.classify(
            exit,
            "ValueError\n",
            onGpus(GIB, 0),
            () -> {
              throw new AssertionError("the peak was asked for");
            });

    assertThat(outcome)
        .isEqualTo(new AttemptOutcome(FailureReason.EXIT_CODE, "exited with code 1", 1));
  }

  @Test
  void a_job_on_no_gpu_has_no_budget_to_tell() {
    assertThat(MemoryWords.budget(JobPlacement.cpuOnly("node-1"), 5 * GIB)).isEmpty();
    assertThat(MemoryWords.budget(null, null)).isEmpty();
  }
}
