package io.gpuq.cgroup;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.gpuq.support.IntegrationTier;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** What this host can give, read from its real /proc and cgroup files. */
@IntegrationTier
class MeasuredHostIntegrationTest {

  private static final long MIB = 1L << 20;

  @TempDir Path dir;

  @Test
  void thisHostGivesAtMostItsMaskAndItsMemory() throws Exception {
    MeasuredHost host = MeasuredHost.measure();
    long memTotal = MeasuredHost.memTotal(Path.of("/proc/meminfo"));

    System.out.printf(
        "this host: %d CPUs (%s), %d MiB (%s); %s%n",
        host.cpus(),
        host.cpusFrom(),
        host.memoryBytes() / MIB,
        host.memoryFrom(),
        CgroupSupport.detect().describe());
    assertThat(host.cpus()).isBetween(1, Affinity.ofThisProcess().count());
    assertThat(host.memoryBytes()).isPositive().isLessThanOrEqualTo(memTotal);
    NodeCapacity capacity = host.minus(Reservation.defaultsFor(host));
    assertThat(capacity.cpus()).isPositive();
    assertThat(capacity.memoryBytes()).isLessThan(host.memoryBytes());
  }

  /**
   * A quota and a limit written into real groups, read back as the kernel words them (the quota's
   * file, the limit rounded to pages): a process in those groups would see 1 CPU and 512 MiB. The
   * process is played by a fake /proc/self/cgroup that names them, beside the real mountinfo.
   */
  @Test
  void aRealQuotaOfOneAndAHalfCpusAndARealLimitBindTheHost() throws Exception {
    CgroupSupport real = CgroupSupport.detect();
    assumeTrue(real.version() == CgroupVersion.V1, "the quota files are v1's here (v2 untested)");
    assumeTrue(real.usable(), real::describe);
    Hierarchy cpu = real.hierarchy(Controller.CPU).orElse(null);
    assumeTrue(cpu != null, "no cpu controller mounted");
    Hierarchy memory = real.hierarchy(Controller.MEMORY).orElseThrow();
    byte[] random = new byte[4];
    ThreadLocalRandom.current().nextBytes(random);
    String name = "gpuq-test-" + HexFormat.of().formatHex(random);
    Path cpuGroup = Files.createDirectory(cpu.ownGroup().resolve(name));
    Path memoryGroup = Files.createDirectory(memory.ownGroup().resolve(name));
    try {
      CgroupFiles.write(cpuGroup.resolve("cpu.cfs_period_us"), "100000");
      CgroupFiles.write(cpuGroup.resolve("cpu.cfs_quota_us"), "150000");
      CgroupFiles.write(memoryGroup.resolve("memory.limit_in_bytes"), String.valueOf(512 * MIB));
      Path proc = dir.resolve("proc");
      Files.createDirectories(proc.resolve("self"));
      Files.copy(Path.of("/proc/self/mountinfo"), proc.resolve("self/mountinfo"));
      Files.copy(Path.of("/proc/meminfo"), proc.resolve("meminfo"));
      Files.write(
          proc.resolve("self/cgroup"),
          List.of(
              "3:cpu:/" + cpu.mountPoint().relativize(cpuGroup),
              "2:memory:/" + memory.mountPoint().relativize(memoryGroup),
              "1:cpuset:/"));
      HostPaths paths = new HostPaths(proc, HostPaths.system().cgroupMount());

      MeasuredHost host =
          MeasuredHost.measure(paths, CgroupSupport.detect(paths, 0), CpuList.parse("0-63"));

      assertThat(host.cpus()).isEqualTo(1);
      assertThat(host.cpusFrom()).contains("150000/100000", name);
      assertThat(host.memoryBytes()).isEqualTo(512 * MIB);
      assertThat(host.memoryFrom()).contains(name);
    } finally {
      Files.delete(cpuGroup);
      Files.delete(memoryGroup);
    }
  }
}
