package io.gpuq.launch;

import static org.assertj.core.api.Assertions.assertThat;

import io.gpuq.cgroup.CoreAllocator;
import io.gpuq.cgroup.CpuList;
import io.gpuq.job.HostResources;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

@DisplayName("Workers kept to their cores without cgroups")
class WorkerConfinementTest {

  private final WorkerConfinement confinement =
      WorkerConfinement.byAffinity(new CoreAllocator(CpuList.parse("0-3")), "turned off");

  @Test
  void each_worker_is_born_bound_to_cores_of_its_own_which_come_back_when_it_ends()
      throws LaunchException {
    WorkerConfinement.Confined a = confinement.prepare("a", 1, new HostResources(2, null));
    WorkerConfinement.Confined b = confinement.prepare("b", 1, new HostResources(2, 1L << 30));

    assertThat(a.bindAtBirth()).contains(CpuList.parse("0-1"));
    assertThat(b.bindAtBirth()).contains(CpuList.parse("2-3"));
    assertThat(a.cgroupProcs()).isEmpty();
    assertThat(confinement.freeCores()).isZero();
    assertThat(confinement.coresOf("a", 1)).contains(CpuList.parse("0-1"));

    assertThat(confinement.end("a", 1)).isEqualTo(WorkerGroupEnd.NONE);

    assertThat(confinement.freeCores()).isEqualTo(2);
    assertThat(confinement.prepare("c", 1, HostResources.ONE_CORE).cores())
        .isEqualTo(CpuList.of(0));
  }

  @Test
  void a_launch_given_up_gives_its_cores_back() throws LaunchException {
    WorkerConfinement.Confined a = confinement.prepare("a", 1, new HostResources(4, null));

    confinement.abandon(a);

    assertThat(confinement.freeCores()).isEqualTo(4);
  }

  @Test
  void a_readopted_worker_keeps_the_cores_it_was_born_with() throws LaunchException {
    confinement.adopt("old", 1, ProcessHandle.current().pid());

    // This JVM may run on every core: the newcomer shares the least-loaded one.
    assertThat(confinement.freeCores()).isLessThan(4);
  }

  @Test
  void without_confinement_nothing_is_given_nor_bound() throws LaunchException {
    WorkerConfinement none = WorkerConfinement.none();

    WorkerConfinement.Confined a = none.prepare("a", 1, new HostResources(2, 1L << 30));

    assertThat(a.bindAtBirth()).isEmpty();
    assertThat(a.cgroupProcs()).isEmpty();
    assertThat(none.end("a", 1)).isEqualTo(WorkerGroupEnd.NONE);
  }
}
