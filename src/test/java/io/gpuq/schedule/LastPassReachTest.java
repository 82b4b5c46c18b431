package io.gpuq.schedule;

import static org.assertj.core.api.Assertions.assertThat;

import io.gpuq.job.HostResources;
import io.gpuq.job.QueuedJob;
import io.gpuq.placement.MemoryDemand;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * Issue 34: a GPU job queued behind all that the last pass read of a long queue wakes no pass, for
 * the next one would read and place the same jobs. Only where that holds.
 */
@DisplayName(
    "A job just queued is out of the last read's reach only where a new read would leave it out")
class LastPassReachTest {

  private static final int LIMIT = 3;

  @Test
  void behind_one_owners_queue_read_to_its_limit_a_job_of_theirs_is_out_of_reach() {
    LastPass.Head read = read(job("a1", "alice", 0), job("a2", "alice", 0), job("a3", "alice", 0));

    assertThat(read.outOfReach("alice", 0, "a4")).isTrue();
    assertThat(read.outOfReach("alice", 0, "a0")).as("an earlier id comes first").isFalse();
    assertThat(read.outOfReach("alice", 1, "a4")).as("a higher priority comes first").isFalse();
    assertThat(read.outOfReach("bob", 0, "b1"))
        .as("another owner's first job ranks first")
        .isFalse();
  }

  @Test
  void an_owner_read_less_deep_than_another_may_get_the_next_place() {
    // Every owner's first job, then every owner's second: bob's second would rank before alice's
    // third.
    LastPass.Head read = read(job("a1", "alice", 0), job("b1", "bob", 0), job("a2", "alice", 0));

    assertThat(read.outOfReach("alice", 0, "a3")).isTrue();
    assertThat(read.outOfReach("bob", 0, "b2")).isFalse();
  }

  @Test
  void a_read_that_was_not_cut_off_reaches_every_job() {
    LastPass.Head read = read(job("a1", "alice", 0), job("a2", "alice", 0));

    assertThat(read.outOfReach("alice", 0, "a3")).isFalse();
  }

  private static LastPass.Head read(QueuedJob... jobs) {
    return LastPass.Head.of(List.of(jobs), LIMIT, LIMIT);
  }

  private static QueuedJob job(String id, String owner, int priority) {
    return new QueuedJob(
        id,
        owner,
        1,
        MemoryDemand.wholeGpu(),
        priority,
        Instant.EPOCH,
        Map.of(),
        null,
        HostResources.ONE_CORE,
        false);
  }
}
