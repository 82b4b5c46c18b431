package io.gpuq.wiring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.gpuq.cgroup.CgroupSupport;
import io.gpuq.cgroup.CgroupVersion;
import io.gpuq.cgroup.CoreAllocator;
import io.gpuq.cgroup.CpuList;
import io.gpuq.config.GpuqProperties.Node.Cgroups;
import io.gpuq.launch.WorkerConfinement;
import io.gpuq.startup.StartRefusedException;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

@DisplayName("gpuq.node.cgroups, decided at start")
class ConfinementConfigurationTest {

  private static final CgroupSupport NONE =
      new CgroupSupport(CgroupVersion.NONE, Map.of(), Optional.of("no cgroup file system mounted"));

  private final CoreAllocator cores = new CoreAllocator(CpuList.parse("0-1"));

  @Test
  void required_refuses_to_start_without_cgroups_saying_why() {
    assertThatThrownBy(
            () -> ConfinementConfiguration.decide(Cgroups.REQUIRED, () -> NONE, "g", cores))
        .isInstanceOf(StartRefusedException.class)
        .hasMessageContaining("gpuq.node.cgroups=required")
        .hasMessageContaining("no cgroup file system mounted");
  }

  @Test
  void auto_falls_back_to_affinity_with_the_reason() {
    WorkerConfinement confinement =
        ConfinementConfiguration.decide(Cgroups.AUTO, () -> NONE, "g", cores);

    assertThat(confinement.mode()).isEqualTo(WorkerConfinement.Mode.AFFINITY);
    assertThat(confinement.fallbackReason()).contains("no cgroup file system mounted");
    assertThat(confinement.usableCores()).contains(CpuList.parse("0-1"));
  }

  @Test
  void off_never_detects() {
    WorkerConfinement confinement =
        ConfinementConfiguration.decide(
            Cgroups.OFF,
            () -> {
              throw new AssertionError("detected");
            },
            "g",
            cores);

    assertThat(confinement.mode()).isEqualTo(WorkerConfinement.Mode.AFFINITY);
    assertThat(confinement.fallbackReason().orElseThrow()).contains("gpuq.node.cgroups=off");
  }

  @Test
  void each_data_directory_has_a_parent_group_of_its_own() {
    String a = ConfinementConfiguration.parentName(Path.of("/var/lib/gpuq"));

    assertThat(a).matches("gpuq-[0-9a-f]{8}");
    assertThat(ConfinementConfiguration.parentName(Path.of("/var/lib/gpuq/"))).isEqualTo(a);
    assertThat(ConfinementConfiguration.parentName(Path.of("/srv/gpuq"))).isNotEqualTo(a);
  }
}
