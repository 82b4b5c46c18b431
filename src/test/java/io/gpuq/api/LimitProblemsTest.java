package io.gpuq.api;

import static org.assertj.core.api.Assertions.assertThat;

import io.gpuq.job.TooManyQueuedJobsException;
import io.gpuq.sweep.SweepTooLargeException;
import io.gpuq.sweep.TooManyUnfinishedSweepsException;
import java.util.Map;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.springframework.http.ProblemDetail;

/**
 * Every request past a limit is answered by one handler: these pin each limit's status, title and
 * figures, in the order the answer names them (docs/api.md), so that a new limit cannot change an
 * old one's answer.
 */
@DisplayName("A request past a limit is answered with its status, title and figures in order")
class LimitProblemsTest {

  private final ApiProblems problems = new ApiProblems();

  @Test
  void a_sweep_too_large_is_413_naming_the_limit_its_value_and_what_was_requested() {
    ProblemDetail problem =
        problems.pastLimit(new SweepTooLargeException("labels", 100_000, 110_000, "too many"));

    assertThat(problem.getStatus()).isEqualTo(413);
    assertThat(problem.getTitle()).isEqualTo("Sweep larger than a sweep may be");
    assertThat(problem.getDetail()).isEqualTo("too many");
    assertThat(problem.getProperties())
        .containsExactly(
            Map.entry("limit", "labels"),
            Map.entry("max", 100_000L),
            Map.entry("requested", 110_000L));
  }

  @Test
  void too_many_unfinished_sweeps_is_429_naming_the_limit_and_the_count() {
    ProblemDetail problem = problems.pastLimit(new TooManyUnfinishedSweepsException(3, 3));

    assertThat(problem.getStatus()).isEqualTo(429);
    assertThat(problem.getTitle()).isEqualTo("Too many unfinished sweeps");
    assertThat(problem.getDetail()).contains("gpuq.sweeps.max-unfinished-per-owner");
    assertThat(problem.getProperties())
        .containsExactly(Map.entry("limit", 3), Map.entry("unfinished", 3L));
  }

  @Test
  void too_many_queued_jobs_is_429_naming_the_limit_its_value_the_count_and_what_was_requested() {
    ProblemDetail problem = problems.pastLimit(new TooManyQueuedJobsException(10_000, 9_990, 20));

    assertThat(problem.getStatus()).isEqualTo(429);
    assertThat(problem.getTitle()).isEqualTo("Too many queued jobs");
    assertThat(problem.getDetail())
        .isEqualTo(
            "you have 9990 queued jobs and this adds 20, past your limit of 10000 queued jobs"
                + " (max-queued-jobs): wait for some to start, or cancel some");
    assertThat(problem.getProperties())
        .containsExactly(
            Map.entry("limit", "max-queued-jobs"),
            Map.entry("max", 10_000L),
            Map.entry("queued", 9_990L),
            Map.entry("requested", 20L));
  }
}
