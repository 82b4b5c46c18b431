package io.gpuq.cgroup;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class CoreAllocatorTest {

  @Test
  void gives_distinct_cores_while_there_are_free_ones_and_takes_them_back() {
    CoreAllocator cores = new CoreAllocator(CpuList.parse("0-3"));

    CoreAllocator.Allocation a = cores.take("a@1", 2);
    CoreAllocator.Allocation b = cores.take("b@1", 2);

    assertThat(a.cores()).isEqualTo(CpuList.parse("0-1"));
    assertThat(b.cores()).isEqualTo(CpuList.parse("2-3"));
    assertThat(a.shared()).isFalse();
    assertThat(b.shared()).isFalse();
    assertThat(cores.free()).isZero();
    assertThat(cores.release("a@1")).contains(CpuList.parse("0-1"));
    assertThat(cores.free()).isEqualTo(2);
    assertThat(cores.take("c@1", 1).cores()).isEqualTo(CpuList.of(0));
  }

  @Test
  void with_too_few_free_cores_a_worker_shares_the_least_loaded_ones() {
    CoreAllocator cores = new CoreAllocator(CpuList.parse("0-2"));
    cores.take("a@1", 2);
    cores.take("b@1", 1);
    cores.release("a@1");
    cores.take("c@1", 1);

    CoreAllocator.Allocation d = cores.take("d@1", 2);

    // Core 1 is free, cores 0 and 2 carry one worker each: the lowest of those shares.
    assertThat(d.cores()).isEqualTo(CpuList.parse("0-1"));
    assertThat(d.shared()).isTrue();
    assertThat(d.freeBefore()).isEqualTo(1);
  }

  @Test
  void a_job_asking_for_more_cores_than_the_node_has_gets_them_all() {
    CoreAllocator cores = new CoreAllocator(CpuList.parse("0-1"));

    assertThat(cores.take("a@1", 5).cores()).isEqualTo(CpuList.parse("0-1"));
  }

  @Test
  void cores_held_by_readopted_workers_count_as_taken() {
    CoreAllocator cores = new CoreAllocator(CpuList.parse("0-3"));
    cores.hold("old@1", CpuList.parse("0,2"));

    assertThat(cores.take("new@1", 2).cores()).isEqualTo(CpuList.parse("1,3"));
  }

  @Test
  void the_reserved_cores_are_the_lowest_and_one_is_always_left() {
    assertThat(CoreAllocator.usable(CpuList.parse("0-7"), 2)).isEqualTo(CpuList.parse("2-7"));
    assertThat(CoreAllocator.usable(CpuList.parse("4,6"), 0)).isEqualTo(CpuList.parse("4,6"));
    assertThat(CoreAllocator.usable(CpuList.parse("4,6"), 5)).isEqualTo(CpuList.of(6));
  }

  @Test
  void a_worker_cannot_take_twice() {
    CoreAllocator cores = new CoreAllocator(CpuList.parse("0-1"));
    cores.take("a@1", 1);

    assertThatThrownBy(() -> cores.take("a@1", 1)).isInstanceOf(IllegalStateException.class);
  }

  @Test
  void workers_asking_for_fractions_share_a_pool_of_the_cores_they_add_up_to() {
    CoreAllocator cores = new CoreAllocator(CpuList.parse("0-3"));
    cores.take("whole@1", 1);

    CoreAllocator.Allocation first = cores.takeShare("a@1", 250);
    for (String key : new String[] {"b@1", "c@1", "d@1"}) {
      assertThat(cores.takeShare(key, 250).cores()).isEqualTo(CpuList.of(1));
    }

    // Four quarters: one core, outside the whole-core worker's.
    assertThat(first.cores()).isEqualTo(CpuList.of(1));
    assertThat(cores.pool()).isEqualTo(CpuList.of(1));
    assertThat(cores.coresOf("a@1")).contains(CpuList.of(1));
    assertThat(cores.poolMembers()).containsExactlyInAnyOrder("a@1", "b@1", "c@1", "d@1");
    assertThat(cores.free()).isEqualTo(2);
    // A whole-core worker never gets a pool core while another is free.
    assertThat(cores.take("next@1", 2).cores()).isEqualTo(CpuList.parse("2-3"));
  }

  @Test
  void the_pool_grows_past_a_whole_core_and_shrinks_as_its_workers_leave() {
    CoreAllocator cores = new CoreAllocator(CpuList.parse("0-3"));
    cores.takeShare("a@1", 500);
    cores.takeShare("b@1", 500);
    assertThat(cores.pool()).isEqualTo(CpuList.of(0));

    assertThat(cores.takeShare("c@1", 100).cores()).isEqualTo(CpuList.parse("0-1"));
    assertThat(cores.takeShare("d@1", 1500).cores()).isEqualTo(CpuList.parse("0-2"));

    assertThat(cores.release("d@1")).contains(CpuList.parse("0-2"));
    assertThat(cores.pool()).isEqualTo(CpuList.parse("0-1"));
    cores.release("c@1");
    cores.release("a@1");
    assertThat(cores.pool()).isEqualTo(CpuList.of(0));
    cores.release("b@1");
    assertThat(cores.pool().isEmpty()).isTrue();
    assertThat(cores.free()).isEqualTo(4);
  }

  @Test
  void a_readopted_worker_of_a_fraction_rejoins_the_pool_with_its_cores() {
    CoreAllocator cores = new CoreAllocator(CpuList.parse("0-3"));
    cores.holdShare("old@1", 250, CpuList.of(3));

    assertThat(cores.sharesPool("old@1")).isTrue();
    assertThat(cores.take("whole@1", 1).cores()).isEqualTo(CpuList.of(0));
    // The next change sizes the pool to its members again: half a core, one core.
    assertThat(cores.takeShare("new@1", 250).cores()).isEqualTo(CpuList.of(3));
  }
}
