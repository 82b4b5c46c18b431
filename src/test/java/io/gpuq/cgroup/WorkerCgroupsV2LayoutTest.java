package io.gpuq.cgroup;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The directories and files a v2 host gets, on a fixture tree: this machine's controllers are on
 * v1, so the real v2 test (in {@link WorkerCgroupsIntegrationTest}) is skipped here. A fixture's
 * files take any write, so this shows what gpuq writes where, not what the kernel accepts.
 */
class WorkerCgroupsV2LayoutTest {

  @TempDir Path dir;

  @Test
  void enablesCpusetAndMemoryBelowGpuqsGroupAndItsParentGroup() throws Exception {
    HostFixture host = new HostFixture(dir).v2("/system.slice/gpuq.service", "cpuset cpu memory");
    host.file("sys/fs/cgroup/system.slice/gpuq.service/cgroup.subtree_control", "\n");
    host.file("sys/fs/cgroup/system.slice/gpuq.service/cgroup.procs", "");
    Path service = host.cgroup("system.slice/gpuq.service");
    // What the kernel makes in a new group, made by hand here.
    Files.createDirectories(service.resolve("gpuq"));
    Files.writeString(service.resolve("gpuq/cgroup.subtree_control"), "\n");

    WorkerCgroups cgroups = WorkerCgroups.open(CgroupSupport.detect(host.paths(), 0), "gpuq");

    assertThat(cgroups.version()).isEqualTo(CgroupVersion.V2);
    assertThat(Files.readString(service.resolve("cgroup.subtree_control")))
        .isEqualTo("+cpuset +memory");
    assertThat(Files.readString(service.resolve("gpuq/cgroup.subtree_control")))
        .isEqualTo("+cpuset +memory");
    for (Controller controller : Controller.values()) {
      if (controller != Controller.CPU && controller != Controller.PIDS) {
        assertThat(cgroups.parent(controller)).hasValue(service.resolve("gpuq"));
      }
    }

    WorkerCgroup group = cgroups.create(new WorkerId("j-7", 2));

    assertThat(group.directories()).containsExactly(service.resolve("gpuq/j-7@2"));
    assertThat(cgroups.list()).containsExactly(new WorkerId("j-7", 2));
    assertThat(group.remove()).isTrue();
    assertThat(cgroups.list()).isEmpty();
  }

  @Test
  void aSideGroupSitsBesideTheWorkersAndIsNeverListedAsOne() throws Exception {
    HostFixture host = new HostFixture(dir).v2("/system.slice/gpuq.service", "cpuset cpu memory");
    host.file("sys/fs/cgroup/system.slice/gpuq.service/cgroup.subtree_control", "\n");
    host.file("sys/fs/cgroup/system.slice/gpuq.service/cgroup.procs", "");
    Path service = host.cgroup("system.slice/gpuq.service");
    Files.createDirectories(service.resolve("gpuq"));
    Files.writeString(service.resolve("gpuq/cgroup.subtree_control"), "\n");
    WorkerCgroups cgroups = WorkerCgroups.open(CgroupSupport.detect(host.paths(), 0), "gpuq");

    // Issue 36: a warm-start zygote's group, made by the same code as a worker's.
    WorkerCgroup side = cgroups.createSide("warm-abc");
    cgroups.create(new WorkerId("j-1", 1));

    assertThat(side.directories()).containsExactly(service.resolve("gpuq/warm-abc"));
    assertThat(cgroups.sideNames("warm-")).containsExactly("warm-abc");
    assertThat(cgroups.list()).containsExactly(new WorkerId("j-1", 1));
    assertThat(cgroups.findSide("warm-abc")).isPresent();
    assertThat(side.remove()).isTrue();
    assertThat(cgroups.findSide("warm-abc")).isEmpty();
  }

  @Test
  void enablesPidsTooWhereTheKernelOffersIt() throws Exception {
    HostFixture host =
        new HostFixture(dir).v2("/system.slice/gpuq.service", "cpuset cpu memory pids");
    host.file("sys/fs/cgroup/system.slice/gpuq.service/cgroup.subtree_control", "\n");
    host.file("sys/fs/cgroup/system.slice/gpuq.service/cgroup.procs", "");
    Path service = host.cgroup("system.slice/gpuq.service");
    Files.createDirectories(service.resolve("gpuq"));
    Files.writeString(service.resolve("gpuq/cgroup.subtree_control"), "\n");

    WorkerCgroups cgroups = WorkerCgroups.open(CgroupSupport.detect(host.paths(), 0), "gpuq");

    assertThat(Files.readString(service.resolve("cgroup.subtree_control")))
        .isEqualTo("+cpuset +memory +pids");
    assertThat(Files.readString(service.resolve("gpuq/cgroup.subtree_control")))
        .isEqualTo("+cpuset +memory +pids");
    assertThat(cgroups.parent(Controller.PIDS)).hasValue(service.resolve("gpuq"));
    assertThat(cgroups.withProcessLimit(64).limitsProcesses()).isTrue();
    assertThat(cgroups.limitsProcesses()).isFalse();
  }

  @Test
  void aGpuqAlreadyInItsSupervisorLeafKeepsItsGroupsBesideIt() throws Exception {
    HostFixture host =
        new HostFixture(dir).v2("/system.slice/gpuq.service/supervisor", "cpuset cpu memory");
    Path service = host.cgroup("system.slice/gpuq.service");
    host.file("sys/fs/cgroup/system.slice/gpuq.service/cgroup.subtree_control", "cpuset memory\n");
    Files.createDirectories(service.resolve("gpuq"));
    Files.writeString(service.resolve("gpuq/cgroup.subtree_control"), "cpuset memory\n");

    WorkerCgroups cgroups = WorkerCgroups.open(CgroupSupport.detect(host.paths(), 0), "gpuq");

    assertThat(cgroups.parent(Controller.MEMORY)).hasValue(service.resolve("gpuq"));
  }
}
