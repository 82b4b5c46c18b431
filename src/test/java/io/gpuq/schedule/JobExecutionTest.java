package io.gpuq.schedule;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class JobExecutionTest {

  @Test
  void an_attempt_is_judged_only_by_what_it_wrote_itself() {
    String log =
        "torch.OutOfMemoryError: CUDA out of memory.\n"
            + "=== gpuq: attempt 2 ===\n"
            + "Traceback: ValueError\n";

    assertThat(JobExecution.thisAttempt(log))
        .isEqualTo("=== gpuq: attempt 2 ===\nTraceback: ValueError\n");
    assertThat(JobExecution.thisAttempt("only one attempt\n")).isEqualTo("only one attempt\n");
  }
}
