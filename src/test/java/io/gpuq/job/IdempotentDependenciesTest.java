package io.gpuq.job;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

@DisplayName("An idempotent retry (issue 37) is the same request only with the same dependencies")
class IdempotentDependenciesTest {

  private final JobService jobs =
      new JobService(
          new InMemoryJobStore(),
          Clock.fixed(Instant.parse("2026-12-01T00:00:00Z"), ZoneOffset.UTC),
          List.of());
  private final Caller alice = new Caller("alice", Caller.Role.SUBMITTER);
  private final JobSpec spec = JobSpecs.aSpec().command("true").build();

  @Test
  void
      a_retry_waiting_for_the_same_jobs_gets_the_first_job_and_one_waiting_for_others_a_conflict() {
    List<Dependency> afterA = List.of(Dependency.onJob("A", DependencyCondition.AFTEROK));
    Submission first = jobs.submit(alice, spec, "key-1", afterA, true);

    Submission retry = jobs.submit(alice, spec, "key-1", afterA, true);

    assertThat(first.created()).isTrue();
    assertThat(retry.created()).isFalse();
    assertThat(retry.job().id()).isEqualTo(first.job().id());
    assertThatThrownBy(
            () ->
                jobs.submit(
                    alice,
                    spec,
                    "key-1",
                    List.of(Dependency.onJob("B", DependencyCondition.AFTEROK)),
                    true))
        .isInstanceOf(IdempotencyKeyReusedException.class);
    assertThatThrownBy(() -> jobs.submit(alice, spec, "key-1"))
        .as("no dependencies at all is another request too")
        .isInstanceOf(IdempotencyKeyReusedException.class);
  }
}
