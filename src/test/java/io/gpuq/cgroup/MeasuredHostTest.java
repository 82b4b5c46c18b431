package io.gpuq.cgroup;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class MeasuredHostTest {

  private static final long GIB = 1L << 30;

  @TempDir Path dir;

  @Test
  void withoutQuotaOrLimitItIsTheAffinityMaskAndMemTotal() throws Exception {
    HostFixture host = new HostFixture(dir).v1("/process_api/x");

    MeasuredHost resources =
        MeasuredHost.measure(
            host.paths(), CgroupSupport.detect(host.paths(), 0), CpuList.parse("0-1"));

    assertThat(resources.cpus()).isEqualTo(2);
    assertThat(resources.cpusFrom()).contains("affinity mask 0-1");
    assertThat(resources.memoryBytes()).isEqualTo(24683568L * 1024);
    assertThat(resources.memoryFrom()).contains("MemTotal");
  }

  @Test
  void aV1QuotaOfFourAndAHalfCpusGivesFourRoundedDown() throws Exception {
    HostFixture host = new HostFixture(dir).v1("/");
    host.file("proc/self/cgroup", "4:memory:/\n3:cpuset:/\n1:cpu:/kube/pod1\n")
        .file("sys/fs/cgroup/cpu/kube/cpu.cfs_quota_us", "800000\n")
        .file("sys/fs/cgroup/cpu/kube/cpu.cfs_period_us", "100000\n")
        .file("sys/fs/cgroup/cpu/kube/pod1/cpu.cfs_quota_us", "450000\n")
        .file("sys/fs/cgroup/cpu/kube/pod1/cpu.cfs_period_us", "100000\n");

    MeasuredHost resources =
        MeasuredHost.measure(
            host.paths(), CgroupSupport.detect(host.paths(), 0), CpuList.parse("0-63"));

    assertThat(resources.cpus()).isEqualTo(4);
    assertThat(resources.cpusFrom()).contains("450000/100000", "pod1");
  }

  @Test
  void aQuotaBelowOneCpuStillGivesOne() throws Exception {
    HostFixture host = new HostFixture(dir).v2("/pod", "cpu memory cpuset");
    host.file("sys/fs/cgroup/pod/cpu.max", "50000 100000\n");

    MeasuredHost resources =
        MeasuredHost.measure(
            host.paths(), CgroupSupport.detect(host.paths(), 0), CpuList.parse("0-7"));

    assertThat(resources.cpus()).isEqualTo(1);
  }

  @Test
  void theAffinityMaskWinsWhenItIsSmallerThanTheQuota() throws Exception {
    HostFixture host = new HostFixture(dir).v2("/pod", "cpu memory cpuset");
    host.file("sys/fs/cgroup/pod/cpu.max", "800000 100000\n");

    MeasuredHost resources =
        MeasuredHost.measure(
            host.paths(), CgroupSupport.detect(host.paths(), 0), CpuList.parse("2,5"));

    assertThat(resources.cpus()).isEqualTo(2);
  }

  @Test
  void v2TakesTheLowestMemoryMaxOfItsGroupAndItsAncestors() throws Exception {
    HostFixture host = new HostFixture(dir).v2("/a/b", "cpu memory cpuset");
    host.file("sys/fs/cgroup/a/memory.max", String.valueOf(8 * GIB) + "\n")
        .file("sys/fs/cgroup/a/b/memory.max", "max\n")
        .file("sys/fs/cgroup/a/cpu.max", "max 100000\n");

    MeasuredHost resources =
        MeasuredHost.measure(
            host.paths(), CgroupSupport.detect(host.paths(), 0), CpuList.parse("0-3"));

    assertThat(resources.memoryBytes()).isEqualTo(8 * GIB);
    assertThat(resources.memoryFrom()).endsWith("a/memory.max");
    assertThat(resources.cpus()).isEqualTo(4);
  }

  @Test
  void v1TakesTheLowestLimitAndTheHierarchicalOne() throws Exception {
    HostFixture host = new HostFixture(dir).v1("/process_api/x");
    host.file("sys/fs/cgroup/memory/process_api/memory.limit_in_bytes", String.valueOf(6 * GIB));

    MeasuredHost resources =
        MeasuredHost.measure(
            host.paths(), CgroupSupport.detect(host.paths(), 0), CpuList.parse("0-1"));
    assertThat(resources.memoryBytes()).isEqualTo(6 * GIB);

    // An ancestor above what the mount shows, seen only through memory.stat.
    host.file(
        "sys/fs/cgroup/memory/process_api/x/memory.stat",
        "cache 0\nhierarchical_memory_limit " + 3 * GIB + "\n");
    resources =
        MeasuredHost.measure(
            host.paths(), CgroupSupport.detect(host.paths(), 0), CpuList.parse("0-1"));
    assertThat(resources.memoryBytes()).isEqualTo(3 * GIB);
    assertThat(resources.memoryFrom()).endsWith("memory.stat");
  }

  @Test
  void aLimitAboveMemTotalIsNoLimit() throws Exception {
    HostFixture host = new HostFixture(dir).v1("/process_api/x").meminfo(4 * 1024 * 1024);
    host.file("sys/fs/cgroup/memory/process_api/memory.limit_in_bytes", String.valueOf(64 * GIB));

    MeasuredHost resources =
        MeasuredHost.measure(
            host.paths(), CgroupSupport.detect(host.paths(), 0), CpuList.parse("0-1"));

    assertThat(resources.memoryBytes()).isEqualTo(4 * GIB);
  }

  @Test
  void withoutCgroupsItIsTheMaskAndMemTotal() throws Exception {
    HostFixture host = new HostFixture(dir).meminfo(2 * 1024 * 1024);
    CgroupSupport none = CgroupSupport.detect(host.paths(), 0);

    MeasuredHost resources = MeasuredHost.measure(host.paths(), none, CpuList.parse("0-2"));

    assertThat(resources.cpus()).isEqualTo(3);
    assertThat(resources.memoryBytes()).isEqualTo(2 * GIB);
  }

  @Test
  void defaultReservationsGrowWithTheHost() {
    assertThat(Reservation.defaultsFor(host(2, 8 * GIB))).isEqualTo(new Reservation(0, GIB));
    assertThat(Reservation.defaultsFor(host(8, 64 * GIB)))
        .isEqualTo(new Reservation(1, 64 * GIB / 20));
    assertThat(Reservation.defaultsFor(host(128, 1024 * GIB)))
        .isEqualTo(new Reservation(2, 1024 * GIB / 20));
    // Never more than half a small container.
    assertThat(Reservation.defaultsFor(host(1, GIB))).isEqualTo(new Reservation(0, GIB / 2));
  }

  @Test
  void capacityIsWhatIsLeftAndAtLeastOneCore() {
    MeasuredHost host = host(8, 64 * GIB);

    assertThat(host.minus(Reservation.defaultsFor(host)))
        .isEqualTo(new NodeCapacity(7, 64 * GIB - 64 * GIB / 20));
    assertThat(host(2, GIB).minus(new Reservation(4, 2 * GIB))).isEqualTo(new NodeCapacity(1, 0));
  }

  private static MeasuredHost host(int cpus, long memory) {
    return new MeasuredHost(cpus, "test", memory, "test");
  }
}
