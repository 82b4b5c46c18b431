package io.gpuq.cgroup;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class CgroupSupportTest {

  @TempDir Path dir;

  @Test
  void findsEachV1ControllersOwnGroupBelowItsMountPoint() {
    HostFixture host = new HostFixture(dir).v1("/process_api/d2f8");

    CgroupSupport support = CgroupSupport.detect(host.paths(), 0);

    assertThat(support.version()).isEqualTo(CgroupVersion.V1);
    assertThat(support.usable()).isTrue();
    assertThat(support.hierarchy(Controller.MEMORY).orElseThrow().ownGroup())
        .isEqualTo(host.cgroup("memory/process_api/d2f8"));
    assertThat(support.hierarchy(Controller.CPUSET).orElseThrow().ownGroup())
        .isEqualTo(host.cgroup("cpuset"));
    assertThat(support.hierarchy(Controller.CPUACCT).orElseThrow().mountPoint())
        .isEqualTo(host.cgroup("cpuacct"));
    assertThat(support.describe()).contains("worker cgroups available", "memory ");
  }

  @Test
  void readsControllersMountedTogetherAsOneHierarchy() {
    HostFixture host = new HostFixture(dir);
    host.file("proc/self/cgroup", "3:cpu,cpuacct:/a\n2:memory:/a\n1:cpuset:/a\n0::/\n")
        .file(
            "proc/self/mountinfo",
            """
            34 31 0:31 / /sys/fs/cgroup/cpu,cpuacct rw,relatime - cgroup cgroup rw,cpu,cpuacct
            35 31 0:32 / /sys/fs/cgroup/memory rw,relatime - cgroup cgroup rw,memory
            36 31 0:33 / /sys/fs/cgroup/cpuset rw,relatime - cgroup cgroup rw,cpuset
            """);

    CgroupSupport support = CgroupSupport.detect(host.paths(), 0);

    assertThat(support.hierarchy(Controller.CPU)).isEqualTo(support.hierarchy(Controller.CPUACCT));
    assertThat(support.hierarchy(Controller.CPU).orElseThrow().ownGroup())
        .isEqualTo(host.cgroup("cpu,cpuacct/a"));
  }

  @Test
  void aContainerSeesItsOwnGroupAsTheMountsRoot() {
    // Docker on v1 without a cgroup namespace: the path names the container's group, and the mount
    // shows only that group, at /sys/fs/cgroup/memory.
    HostFixture host = new HostFixture(dir);
    host.file("proc/self/cgroup", "5:memory:/docker/abc\n4:cpuset:/docker/abc\n")
        .file(
            "proc/self/mountinfo",
            """
            600 590 0:40 /docker/abc /sys/fs/cgroup/memory rw,nosuid - cgroup cgroup rw,memory
            601 590 0:41 /docker/abc /sys/fs/cgroup/cpuset rw,nosuid - cgroup cgroup rw,cpuset
            """);

    CgroupSupport support = CgroupSupport.detect(host.paths(), 0);

    Hierarchy memory = support.hierarchy(Controller.MEMORY).orElseThrow();
    assertThat(memory.ownGroup()).isEqualTo(host.cgroup("memory"));
    assertThat(memory.mountPoint()).isEqualTo(host.cgroup("memory"));
  }

  @Test
  void aReadOnlyMountIsUnavailableAndSaysWhy() {
    // Docker's default: /sys/fs/cgroup mounted read-only in the container.
    HostFixture host = new HostFixture(dir);
    host.file("proc/self/cgroup", "5:memory:/\n4:cpuset:/\n")
        .file(
            "proc/self/mountinfo",
            """
            600 590 0:40 / /sys/fs/cgroup/memory ro,nosuid - cgroup cgroup rw,memory
            601 590 0:41 / /sys/fs/cgroup/cpuset ro,nosuid - cgroup cgroup rw,cpuset
            """);

    CgroupSupport support = CgroupSupport.detect(host.paths(), 0);

    assertThat(support.usable()).isFalse();
    assertThat(support.unavailableReason().orElseThrow())
        .contains("memory is mounted read-only")
        .contains("cpuset is mounted read-only");
  }

  @Test
  void aMissingV1ControllerIsNamed() {
    HostFixture host = new HostFixture(dir);
    host.file("proc/self/cgroup", "5:memory:/\n")
        .file(
            "proc/self/mountinfo",
            "35 31 0:32 / /sys/fs/cgroup/memory rw,relatime - cgroup cgroup rw,memory\n");

    CgroupSupport support = CgroupSupport.detect(host.paths(), 0);

    assertThat(support.version()).isEqualTo(CgroupVersion.V1);
    assertThat(support.unavailableReason()).hasValue("the cpuset controller is not mounted");
  }

  @Test
  void anUnprivilegedGpuqWithoutADelegatedGroupIsUnavailable() throws Exception {
    // Its own memory group is not there to write (as a group owned by root is not, to uid 1000):
    // access(2) says no either way, and detection asks it only for a non-root gpuq.
    HostFixture host = new HostFixture(dir).v1("/user.slice/not-delegated");
    Path own = host.cgroup("memory/user.slice/not-delegated");
    Files.delete(own.resolve("memory.limit_in_bytes"));
    Files.delete(own);

    CgroupSupport asUser = CgroupSupport.detect(host.paths(), 1000);

    assertThat(asUser.usable()).isFalse();
    assertThat(asUser.unavailableReason().orElseThrow())
        .contains("uid 1000", "not-delegated", "not root and the cgroup is not delegated");
  }

  @Test
  void findsV2AndItsOwnGroup() {
    HostFixture host =
        new HostFixture(dir).v2("/system.slice/gpuq.service", "cpuset cpu memory pids");

    CgroupSupport support = CgroupSupport.detect(host.paths(), 0);

    assertThat(support.version()).isEqualTo(CgroupVersion.V2);
    assertThat(support.usable()).isTrue();
    assertThat(support.hierarchy(Controller.MEMORY).orElseThrow().ownGroup())
        .isEqualTo(host.cgroup("system.slice/gpuq.service"));
    assertThat(support.hierarchy(Controller.CPUSET))
        .isEqualTo(support.hierarchy(Controller.MEMORY));
    assertThat(support.hierarchy(Controller.CPUACCT)).isPresent();
  }

  @Test
  void v2WithoutCpusetForGpuqsGroupSaysWhoMustEnableIt() {
    HostFixture host = new HostFixture(dir).v2("/system.slice/gpuq.service", "cpu memory pids");

    CgroupSupport support = CgroupSupport.detect(host.paths(), 0);

    assertThat(support.version()).isEqualTo(CgroupVersion.V2);
    assertThat(support.unavailableReason().orElseThrow())
        .contains("cpuset not available", "gpuq.service", "cgroup.subtree_control");
  }

  @Test
  void aHostWithoutCgroupsIsNone() {
    HostFixture host = new HostFixture(dir);
    host.file("proc/self/cgroup", "0::/\n")
        .file("proc/self/mountinfo", "22 1 0:20 / /proc rw - proc proc rw\n");

    CgroupSupport support = CgroupSupport.detect(host.paths(), 0);

    assertThat(support.version()).isEqualTo(CgroupVersion.NONE);
    assertThat(support.unavailableReason().orElseThrow()).contains("no cgroup file system");
  }

  @Test
  void unreadableProcIsNoneWithTheError() {
    CgroupSupport support = CgroupSupport.detect(new HostFixture(dir).paths(), 0);

    assertThat(support.version()).isEqualTo(CgroupVersion.NONE);
    assertThat(support.unavailableReason().orElseThrow()).contains("cannot read");
  }

  @Test
  void unescapesMountPoints() {
    assertThat(CgroupSupport.Mount.unescape("/mnt/a\\040b")).isEqualTo("/mnt/a b");
  }
}
