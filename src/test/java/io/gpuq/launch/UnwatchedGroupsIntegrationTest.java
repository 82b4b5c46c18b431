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
import io.gpuq.support.IntegrationTier;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HexFormat;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What a restarted gpuq does with the worker groups nobody watches any more (their jobs ended or
 * were given away while it was down): what still runs in them is stopped as any worker is, SIGTERM
 * first, so that a job's code may save its work, and SIGKILL only after the grace period. Real
 * cgroups (v1 here), below a parent group of each test's own; needs root.
 */
@IntegrationTier
@DisplayName("Worker groups no gpuq watches, after a restart")
class UnwatchedGroupsIntegrationTest {

  private static CgroupSupport support;

  @TempDir Path dir;
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
    cgroups = WorkerCgroups.open(support, "gpuq-test-" + HexFormat.of().formatHex(random));
    confinement = WorkerConfinement.inCgroups(cgroups, new CoreAllocator(CpuList.of(0)));
  }

  @AfterEach
  void removeEverything() throws Exception {
    processes.close();
    for (WorkerId id : cgroups.list()) {
      WorkerCgroup group = cgroups.find(id).orElseThrow();
      group.processes().forEach(pid -> ProcessSignals.signal(pid, ProcessSignals.SIGKILL));
      await().atMost(Duration.ofSeconds(10)).until(group::remove);
    }
    confinement.close();
  }

  @Test
  void a_worker_left_running_gets_sigterm_and_may_finish_its_work_before_its_group_goes()
      throws Exception {
    Path saved = dir.resolve("saved");
    WorkerCgroup group = cgroups.create(new WorkerId("j-1", 1));
    startIn(
        group,
        "trap 'sleep 0.3; echo checkpoint > "
            + saved
            + "; exit 0' TERM; while :; do sleep 0.05; done");
    WorkerCgroup watchedGroup = cgroups.create(new WorkerId("j-2", 1));
    Process watched = startIn(watchedGroup, "exec sleep 120");

    confinement.removeUnwatched(Set.of(new WorkerId("j-2", 1)), Duration.ofSeconds(20));

    assertThat(saved).content().isEqualToIgnoringNewLines("checkpoint");
    assertThat(cgroups.list()).containsExactly(new WorkerId("j-2", 1));
    assertThat(watched.isAlive()).isTrue();
  }

  @Test
  void what_ignores_sigterm_is_killed_after_the_grace_period_and_its_group_removed()
      throws Exception {
    WorkerCgroup group = cgroups.create(new WorkerId("j-1", 1));
    Process stubborn = startIn(group, "trap '' TERM; while :; do sleep 0.05; done");

    confinement.removeUnwatched(Set.of(), Duration.ofMillis(300));

    await().atMost(Duration.ofSeconds(10)).until(() -> !stubborn.isAlive());
    assertThat(cgroups.list()).isEmpty();
  }

  /** A shell script run in the group, as launch runs a worker, once it is there. */
  private Process startIn(WorkerCgroup group, String script) throws Exception {
    Process process = processes.startIn(group, "/bin/sh", "-c", script);
    await().atMost(Duration.ofSeconds(10)).until(() -> group.processes().contains(process.pid()));
    return process;
  }
}
