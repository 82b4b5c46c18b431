package io.gpuq.node;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.gpuq.cgroup.MeasuredHost;
import io.gpuq.cgroup.NodeCapacity;
import io.gpuq.cgroup.Reservation;
import io.gpuq.startup.StartRefusedException;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

@DisplayName("What a node gives its jobs: measured less reserved")
class LocalCapacityTest {

  private static final long GIB = 1L << 30;

  private static MeasuredHost host(int cpus, long memory) {
    return new MeasuredHost(
        cpus, "affinity mask 0-" + (cpus - 1), memory, "MemTotal of /proc/meminfo");
  }

  @Test
  void unset_settings_take_the_defaults_of_the_design_note() {
    LocalCapacity eight = LocalCapacity.decide(host(8, 64 * GIB), null, null);
    // 1 core on 3 to 31 CPUs; memory 5 % (3.2 GiB), at least 1 GiB.
    assertThat(eight.reserved()).isEqualTo(new Reservation(1, 64 * GIB / 20));
    assertThat(eight.allocatable()).isEqualTo(new NodeCapacity(7, 64 * GIB - 64 * GIB / 20));
    assertThat(eight.reservedByDefault()).isTrue();

    LocalCapacity big = LocalCapacity.decide(host(64, 1024 * GIB), null, null);
    assertThat(big.allocatable()).isEqualTo(new NodeCapacity(62, 1024 * GIB - 1024 * GIB / 20));

    LocalCapacity laptop = LocalCapacity.decide(host(2, 8 * GIB), null, null);
    assertThat(laptop.allocatable()).isEqualTo(new NodeCapacity(2, 7 * GIB));

    // Never more than half the memory: a 1.5 GiB container keeps 768 MiB for its jobs.
    LocalCapacity small = LocalCapacity.decide(host(1, 3 * GIB / 2), null, null);
    assertThat(small.allocatable()).isEqualTo(new NodeCapacity(1, 3 * GIB / 4));
  }

  @Test
  void a_setting_given_replaces_its_default_and_the_other_keeps_its_own() {
    LocalCapacity capacity = LocalCapacity.decide(host(16, 32 * GIB), 4, null);
    assertThat(capacity.reserved()).isEqualTo(new Reservation(4, 32 * GIB / 20));
    assertThat(capacity.allocatable().cpus()).isEqualTo(12);
    assertThat(capacity.reservedByDefault()).isFalse();

    LocalCapacity none = LocalCapacity.decide(host(16, 32 * GIB), 0, 0L);
    assertThat(none.allocatable()).isEqualTo(new NodeCapacity(16, 32 * GIB));

    LocalCapacity memory = LocalCapacity.decide(host(16, 32 * GIB), null, 2 * GIB);
    assertThat(memory.allocatable()).isEqualTo(new NodeCapacity(15, 30 * GIB));
  }

  @Test
  void a_reservation_that_leaves_no_core_is_refused_naming_the_setting_and_the_measure() {
    assertThatThrownBy(() -> LocalCapacity.decide(host(4, 32 * GIB), 4, null))
        .isInstanceOf(StartRefusedException.class)
        .hasMessageContaining("gpuq.node.reserved-cpus=4 leaves no core to jobs")
        .hasMessageContaining("gives gpuq 4 (from affinity mask 0-3)")
        .hasMessageContaining("set gpuq.node.reserved-cpus below 4");
    assertThatThrownBy(() -> LocalCapacity.decide(host(4, 32 * GIB), 9, null))
        .isInstanceOf(StartRefusedException.class);
    assertThat(LocalCapacity.decide(host(4, 32 * GIB), 3, null).allocatable().cpus()).isOne();
  }

  @Test
  void a_reservation_that_leaves_no_memory_is_refused() {
    assertThatThrownBy(() -> LocalCapacity.decide(host(4, 8 * GIB), null, 8 * GIB))
        .isInstanceOf(StartRefusedException.class)
        .hasMessageContaining("gpuq.node.reserved-memory=8GiB leaves no memory to jobs")
        .hasMessageContaining("gives gpuq 8GiB (from MemTotal of /proc/meminfo)");
    assertThat(
            LocalCapacity.decide(host(4, 8 * GIB), null, 8 * GIB - 1).allocatable().memoryBytes())
        .isOne();
  }

  @Test
  void a_negative_setting_is_refused() {
    assertThatThrownBy(() -> LocalCapacity.decide(host(4, 8 * GIB), -1, null))
        .isInstanceOf(StartRefusedException.class)
        .hasMessageContaining("gpuq.node.reserved-cpus=-1");
  }

  @Test
  void the_log_line_says_what_jobs_get_and_where_each_figure_came_from() {
    MeasuredHost quota =
        new MeasuredHost(
            4,
            "cgroup CPU quota 400000/100000 of /sys/fs/cgroup/cpu.max (4 CPUs)",
            16 * GIB,
            "/sys/fs/cgroup/memory.max");
    assertThat(LocalCapacity.decide(quota, 1, 2 * GIB).describe())
        .isEqualTo(
            "jobs get 3 cores and 14GiB of host memory: 4 CPUs from cgroup CPU quota"
                + " 400000/100000 of /sys/fs/cgroup/cpu.max (4 CPUs) less 1 reserved; 16GiB from"
                + " /sys/fs/cgroup/memory.max less 2GiB reserved");
    assertThat(LocalCapacity.decide(quota, null, null).describe())
        .contains("(the default reservation;");
  }
}
