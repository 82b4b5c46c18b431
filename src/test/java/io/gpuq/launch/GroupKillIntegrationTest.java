package io.gpuq.launch;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.gpuq.cgroup.CgroupSupport;
import io.gpuq.cgroup.Controller;
import io.gpuq.cgroup.CoreAllocator;
import io.gpuq.cgroup.CpuList;
import io.gpuq.cgroup.GroupedProcesses;
import io.gpuq.cgroup.WorkerCgroup;
import io.gpuq.cgroup.WorkerCgroups;
import io.gpuq.cgroup.WorkerId;
import io.gpuq.support.IntegrationTier;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HexFormat;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ThreadLocalRandom;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * Issue 34: a stop's deadline kills a worker's whole group at once (v2's cgroup.kill; v1 freezes
 * it, kills each process, thaws), so that a job forking as fast as it can, deaf to SIGTERM, is gone
 * after one kill, not outrun by kills sent one by one from lists that its forks make stale. Real
 * cgroups, below a parent group of each test's own; needs root.
 */
@IntegrationTier
@DisplayName("Killing a worker's group at once")
class GroupKillIntegrationTest {

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
    cgroups = WorkerCgroups.open(support, "gpuq-test-" + HexFormat.of().formatHex(random));
    confinement = WorkerConfinement.inCgroups(cgroups, new CoreAllocator(CpuList.of(0)));
  }

  @AfterEach
  void removeEverything() throws Exception {
    processes.close();
    for (WorkerId id : cgroups.list()) {
      WorkerCgroup group = cgroups.find(id).orElseThrow();
      await()
          .atMost(Duration.ofSeconds(30))
          .until(
              () -> {
                group.thaw();
                group
                    .processes()
                    .forEach(pid -> ProcessSignals.signal(pid, ProcessSignals.SIGKILL));
                return group.remove();
              });
    }
    confinement.close();
  }

  @Test
  void on_v1_each_worker_group_has_a_freezer_where_the_freezer_is_mounted() throws Exception {
    assumeTrue(
        support.hierarchy(Controller.FREEZER).isPresent(), "no freezer hierarchy is mounted here");
    WorkerCgroup group = cgroups.create(new WorkerId("j-1", 1));

    assertThat(group.path(Controller.FREEZER).resolve("freezer.state")).exists();
  }

  @Test
  void one_kill_leaves_nothing_of_a_group_that_forks_continuously_and_ignores_sigterm()
      throws Exception {
    WorkerCgroup group = cgroups.create(new WorkerId("j-1", 1));
    // Each child forks a grandchild into a session of its own and exits: the grandchildren are in
    // no process tree, group or session of the worker's; only the cgroup holds them.
    processes.startIn(
        group,
        "python3",
        "-c",
        "import os, signal, time\n"
            + "signal.signal(signal.SIGTERM, signal.SIG_IGN)\n"
            + "while True:\n"
            + "    if os.fork() == 0:\n"
            + "        if os.fork() == 0:\n"
            + "            os.setsid()\n"
            + "            time.sleep(600)\n"
            + "        os._exit(0)\n"
            + "    os.wait()\n"
            + "    time.sleep(0.01)\n");
    await().atMost(Duration.ofSeconds(60)).until(() -> group.processes().size() >= 20);
    Set<Long> seen = new TreeSet<>(group.processes());

    confinement.killAll("j-1", 1);

    // Once: what was not killed by then would fork on, and the group would never empty.
    await().atMost(Duration.ofSeconds(30)).until(() -> group.processes().isEmpty());
    assertThat(seen).allSatisfy(pid -> assertThat(running(pid)).as("pid %d", pid).isFalse());
    assertThat(Files.readString(freezerStateOr(group))).doesNotContain("FROZEN");
  }

  /** The v1 freezer's state, or a file that says nothing where there is none. */
  private static Path freezerStateOr(WorkerCgroup group) throws IOException {
    try {
      return group.path(Controller.FREEZER).resolve("freezer.state");
    } catch (IllegalStateException noFreezer) {
      return Files.createTempFile("no-freezer", ".state");
    }
  }

  /** Alive and not a zombie. */
  static boolean running(long pid) {
    try {
      for (String line : Files.readAllLines(Path.of("/proc/" + pid + "/status"))) {
        if (line.startsWith("State:")) {
          return !line.contains("Z");
        }
      }
      return false;
    } catch (IOException gone) {
      return false;
    }
  }
}
