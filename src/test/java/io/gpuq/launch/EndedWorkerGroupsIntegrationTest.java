package io.gpuq.launch;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.gpuq.cgroup.CgroupSupport;
import io.gpuq.cgroup.CoreAllocator;
import io.gpuq.cgroup.CpuList;
import io.gpuq.cgroup.GroupedProcesses;
import io.gpuq.cgroup.WorkerCgroup;
import io.gpuq.cgroup.WorkerCgroups;
import io.gpuq.cgroup.WorkerId;
import io.gpuq.job.HostResources;
import io.gpuq.support.IntegrationTier;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HexFormat;
import java.util.concurrent.ThreadLocalRandom;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * The group of a worker that ended goes with it, however many processes it left behind: real
 * cgroups (v1 here), below a parent group of the test's own; needs root.
 */
@IntegrationTier
@DisplayName("The cgroup of an ended worker")
class EndedWorkerGroupsIntegrationTest {

  private static CgroupSupport support;

  private final GroupedProcesses processes = new GroupedProcesses();
  private WorkerCgroups cgroups;
  private WorkerConfinement confinement;

  @BeforeAll
  static void detect() {
    support = CgroupSupport.detect();
    assumeTrue(support.usable(), support::describe);
  }

  @BeforeEach
  void ownParentGroup() throws IOException {
    byte[] random = new byte[4];
    ThreadLocalRandom.current().nextBytes(random);
    cgroups =
        WorkerCgroups.open(support, "gpuq-test-" + HexFormat.of().formatHex(random))
            .withProcessLimit(4096);
    confinement = WorkerConfinement.inCgroups(cgroups, new CoreAllocator(CpuList.of(0)));
  }

  @AfterEach
  void removeEverything() throws Exception {
    processes.close();
    for (WorkerId id : cgroups.list()) {
      WorkerCgroup group = cgroups.find(id).orElseThrow();
      group.processes().forEach(pid -> ProcessSignals.signal(pid, ProcessSignals.SIGKILL));
      await().atMost(Duration.ofSeconds(60)).until(group::remove);
    }
    confinement.close();
  }

  /**
   * Thousands of processes take seconds to exit on a busy host (3,500 took 14 s on this 2-core
   * machine): a group given up after a fixed 5 s stayed until gpuq restarted.
   */
  @Test
  void is_removed_also_when_thousands_of_its_processes_outlive_its_worker() throws Exception {
    int sleepers = 2000;
    confinement.prepare("many", 1, HostResources.ONE_CORE);
    WorkerCgroup group = cgroups.find(new WorkerId("many", 1)).orElseThrow();
    Process worker =
        processes.startIn(
            group,
            "/bin/sh",
            "-c",
            "i=0; while [ $i -lt " + sleepers + " ]; do sleep 600 & i=$((i+1)); done; wait");
    await().atMost(Duration.ofMinutes(3)).until(() -> group.processes().size() > sleepers);
    worker.destroyForcibly();
    worker.waitFor();

    long before = System.nanoTime();
    WorkerGroupEnd end = confinement.end("many", 1);
    System.out.printf(
        "%d processes left behind: end() took %.1f s, group %s%n",
        sleepers + 1,
        (System.nanoTime() - before) / 1e9,
        confinement.leftoverGroups().isEmpty() ? "removed" : "left for the duty");

    // Removed by the end itself, or by the duty's next runs: never left until a restart.
    await()
        .atMost(Duration.ofMinutes(2))
        .untilAsserted(
            () -> {
              confinement.removeLeftovers();
              assertThat(cgroups.list()).isEmpty();
              assertThat(confinement.leftoverGroups()).isEmpty();
            });
    assertThat(end.processLimit()).isEqualTo(4096L);
    assertThat(end.hitProcessLimit()).isFalse();
  }

  /**
   * A process SIGKILL cannot take yet (frozen, here by a v1 freezer group of the test's own) kept
   * its group past the end's wait: before, it stayed until gpuq restarted; now it is retried. The
   * end gives up after 2 s here, not gpuq's 30 s: what is proved is the retry, not the wait.
   */
  @Test
  void whose_processes_cannot_go_yet_is_removed_once_they_can() throws Exception {
    Path freezer = Path.of("/sys/fs/cgroup/freezer");
    assumeTrue(
        Files.exists(freezer.resolve("cgroup.procs")), "no v1 freezer hierarchy is mounted here");
    Path frozen = freezer.resolve("gpuq-test-frozen-" + System.nanoTime());
    Files.createDirectory(frozen);
    WorkerId id = new WorkerId("frozen", 1);
    // In place of the one made before each test (holding nothing yet; closed after each, as this).
    confinement =
        WorkerConfinement.inCgroups(
            cgroups, new CoreAllocator(CpuList.of(0)), Duration.ofSeconds(2));
    try {
      confinement.prepare("frozen", 1, HostResources.ONE_CORE);
      WorkerCgroup group = cgroups.find(id).orElseThrow();
      Process worker = processes.startIn(group, "sleep", "600");
      await().atMost(Duration.ofSeconds(30)).until(() -> group.processes().contains(worker.pid()));
      Files.writeString(frozen.resolve("cgroup.procs"), Long.toString(worker.pid()));
      Files.writeString(frozen.resolve("freezer.state"), "FROZEN");
      await()
          .atMost(Duration.ofSeconds(30))
          .until(() -> Files.readString(frozen.resolve("freezer.state")).strip().equals("FROZEN"));

      confinement.end("frozen", 1);

      assertThat(confinement.leftoverGroups()).containsExactly(id);
      assertThat(cgroups.list()).containsExactly(id);
      Files.writeString(frozen.resolve("freezer.state"), "THAWED");
      await()
          .atMost(Duration.ofMinutes(1))
          .untilAsserted(
              () -> {
                confinement.removeLeftovers();
                assertThat(cgroups.list()).isEmpty();
                assertThat(confinement.leftoverGroups()).isEmpty();
              });
    } finally {
      Files.writeString(frozen.resolve("freezer.state"), "THAWED");
      processes.close();
      await().atMost(Duration.ofSeconds(30)).until(() -> Files.deleteIfExists(frozen) || true);
    }
  }
}
