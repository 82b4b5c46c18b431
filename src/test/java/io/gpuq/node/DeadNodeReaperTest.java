package io.gpuq.node;

import static io.gpuq.job.JobBuilder.T0;
import static io.gpuq.job.JobBuilder.aRunningJob;
import static org.assertj.core.api.Assertions.assertThat;

import io.gpuq.job.FailureReason;
import io.gpuq.job.InMemoryJobStore;
import io.gpuq.job.Job;
import io.gpuq.job.JobService;
import io.gpuq.job.JobState;
import java.time.Clock;
import java.time.Duration;
import java.time.ZoneOffset;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

@DisplayName("The dead-node reaper")
class DeadNodeReaperTest {

  private final InMemoryJobStore store = new InMemoryJobStore();
  private final JobService jobs = new JobService(store, Clock.fixed(T0, ZoneOffset.UTC), List.of());
  private final AtomicInteger wakeUps = new AtomicInteger();

  private DeadNodeReaper reaperSeeing(Collection<String> silent) {
    return new DeadNodeReaper(() -> silent, jobs, wakeUps::incrementAndGet, Duration.ofSeconds(1));
  }

  @Test
  void declares_the_jobs_of_silent_nodes_lost_requeues_those_with_attempts_left_and_wakes_once() {
    Job retried = aRunningJob().spec(s -> s.attempts(2)).on("silent-1").in(store);
    Job givenUp = aRunningJob().on("silent-2").in(store);
    Job elsewhere = aRunningJob().on("alive").in(store);

    reaperSeeing(List.of("silent-1", "silent-2")).runOnce();

    Job requeued = store.find(retried.id()).orElseThrow();
    assertThat(requeued.state()).isEqualTo(JobState.QUEUED);
    assertThat(requeued.attempt()).isEqualTo(2);
    assertThat(requeued.attempts().get(0).failureReason()).isEqualTo(FailureReason.LOST);
    assertThat(requeued.attempts().get(0).failureMessage())
        .isEqualTo("node silent-1 stopped heartbeating");
    Job failed = store.find(givenUp.id()).orElseThrow();
    assertThat(failed.state()).isEqualTo(JobState.FAILED);
    assertThat(failed.failureReason()).isEqualTo(FailureReason.LOST);
    assertThat(store.find(elsewhere.id()).orElseThrow().state()).isEqualTo(JobState.RUNNING);
    assertThat(wakeUps).hasValue(1);
  }

  @Test
  void a_silent_node_that_ran_nothing_wakes_nobody() {
    aRunningJob().on("alive").in(store);

    reaperSeeing(List.of("silent")).runOnce();
    reaperSeeing(List.of()).runOnce();

    assertThat(wakeUps).hasValue(0);
  }

  @Test
  void of_two_nodes_reaping_one_silent_node_only_one_declares_each_job_lost() {
    Job job = aRunningJob().spec(s -> s.attempts(3)).on("silent").in(store);

    reaperSeeing(List.of("silent")).runOnce();
    reaperSeeing(List.of("silent")).runOnce();

    Job read = store.find(job.id()).orElseThrow();
    assertThat(read.attempt()).isEqualTo(2);
    assertThat(read.attempts()).singleElement();
    assertThat(wakeUps).hasValue(1);
  }
}
