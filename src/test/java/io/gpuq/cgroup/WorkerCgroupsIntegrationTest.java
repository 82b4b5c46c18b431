package io.gpuq.cgroup;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.gpuq.support.IntegrationTier;
import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Worker cgroups for real, in this machine's cgroups (v1 here, v2 where a machine has it), below
 * the test JVM's own groups, under a parent group of each test's own. Needs root, or a delegated
 * cgroup; skipped with detection's reason otherwise.
 */
@IntegrationTier
class WorkerCgroupsIntegrationTest {

  private static final long MIB = 1L << 20;

  private static CgroupSupport support;

  private final GroupedProcesses processes = new GroupedProcesses();
  private String parentName;
  private WorkerCgroups cgroups;

  @BeforeAll
  static void detect() {
    support = CgroupSupport.detect();
    assumeTrue(support.usable(), support::describe);
  }

  @BeforeEach
  void openOwnParent() throws IOException {
    byte[] random = new byte[4];
    ThreadLocalRandom.current().nextBytes(random);
    parentName = "gpuq-test-" + HexFormat.of().formatHex(random);
    cgroups = WorkerCgroups.open(support, parentName);
  }

  @AfterEach
  void removeEverything() throws Exception {
    processes.close();
    if (cgroups == null) {
      return;
    }
    for (WorkerId id : cgroups.list()) {
      WorkerCgroup group = cgroups.find(id).orElseThrow();
      await().atMost(Duration.ofSeconds(10)).until(group::remove);
    }
    for (Controller controller : Controller.values()) {
      Path parent = cgroups.parent(controller).orElse(null);
      if (parent != null && Files.isDirectory(parent)) {
        // What a failed test left that is no worker's (an empty cgroup rmdirs whatever its files).
        try (DirectoryStream<Path> children =
            Files.newDirectoryStream(parent, Files::isDirectory)) {
          for (Path child : children) {
            Files.delete(child);
          }
        }
        Files.delete(parent);
      }
    }
  }

  @Test
  void theKernelKillsAProcessOverItsMemoryCapAndCountsItWhileItsNeighbourLives() throws Exception {
    WorkerCgroup capped = cgroups.create(new WorkerId("hog", 1));
    capped.limitMemory(256 * MIB);
    WorkerCgroup neighbourGroup = cgroups.create(new WorkerId("neighbour", 1));
    neighbourGroup.limitMemory(256 * MIB);
    Process neighbour = processes.startIn(neighbourGroup, "sleep", "120");

    // 600 MiB, every page touched: bytearray's zeroed pages are not charged until written.
    Process hog =
        processes.startIn(
            capped,
            "python3",
            "-c",
            "b = bytearray(600 << 20)\n"
                + "for i in range(0, len(b), 4096): b[i] = 1\n"
                + "print('allocated', len(b))");

    assertThat(hog.waitFor(120, TimeUnit.SECONDS)).isTrue();
    String output = GroupedProcesses.output(hog);
    System.out.printf(
        "OOM: exit %d, oom_kill %d, neighbour alive %s%n",
        hog.exitValue(), capped.oomKills(), neighbour.isAlive());
    assertThat(output).doesNotContain("allocated");
    assertThat(hog.exitValue()).isEqualTo(128 + 9);
    assertThat(capped.oomKills()).isEqualTo(1);
    assertThat(capped.memoryLimit()).hasValue(256 * MIB);
    assertThat(neighbour.isAlive()).isTrue();
    assertThat(neighbourGroup.oomKills()).isZero();
    assertThat(neighbourGroup.processes()).containsExactly(neighbour.pid());
    assertThat(neighbourGroup.memoryUsage()).isPositive().isLessThan(256 * MIB);
    assertThat(capped.memoryUsage()).isLessThanOrEqualTo(256 * MIB);
  }

  @Test
  void twoBusyThreadsBoundToOneCoreGetAtMostOneCpuSecondPerSecond() throws Exception {
    CpuList parentCpus =
        CpuList.parse(
            WorkerCgroups.effective(
                cgroups.parent(Controller.CPUSET).orElseThrow(), "cpuset.cpus"));
    // Its last CPU: the test JVM's own threads favour none in particular.
    CpuList one = CpuList.of(parentCpus.cpus().length() - 1);
    WorkerCgroup bound = cgroups.create(new WorkerId("busy", 1));
    bound.bindCpus(one);

    // hashlib releases the GIL for large buffers: these two threads really run at once.
    Process busy =
        processes.startIn(
            bound,
            "python3",
            "-c",
            """
            import hashlib, threading
            data = b'x' * (1 << 20)
            def spin():
                while True:
                    hashlib.sha256(data).digest()
            for _ in range(2):
                threading.Thread(target=spin, daemon=True).start()
            threading.Event().wait()
            """);
    // Python's own start takes about 0.45 CPU-seconds on a loaded test machine: wait for its two
    // threads, not for an amount of CPU time. "python3" may be a shim (pyenv's is a shell script
    // that runs others before it execs Python, all bound to that one busy core): the threads are
    // counted in whichever process of the group runs the code, not in the one started.
    long[] runner = new long[1];
    await()
        .atMost(Duration.ofSeconds(120))
        .until(
            () -> {
              runner[0] = processWithThreads(bound, 3);
              return runner[0] > 0 && bound.cpuUsage().compareTo(Duration.ofMillis(300)) > 0;
            });
    assertThat(busy.isAlive()).isTrue();
    assertThat(GroupedProcesses.status(runner[0], "Cpus_allowed_list")).isEqualTo(one.toString());

    long[] perCpuBefore = perCpuUsage(bound);
    double rate = cpuSecondsPerSecond(bound, Duration.ofSeconds(3));
    long[] perCpuAfter = perCpuUsage(bound);

    System.out.printf("bound to CPU %s: %.3f CPU-seconds per second%n", one, rate);
    assertThat(rate).isLessThanOrEqualTo(1.2).isGreaterThan(0.1);
    // On a loaded machine the rate alone could stay low without the binding: v1 also shows that
    // no other CPU ran the group at all.
    for (int cpu = 0; cpu < perCpuAfter.length; cpu++) {
      if (!one.contains(cpu)) {
        assertThat(perCpuAfter[cpu] - perCpuBefore[cpu]).as("CPU %d's share", cpu).isZero();
      }
    }
    assertThat(bound.cpus()).isEqualTo(one);
  }

  /** A process of the group with at least {@code threads} threads, or 0 while there is none. */
  private static long processWithThreads(WorkerCgroup group, int threads) throws IOException {
    for (long pid : group.processes()) {
      try {
        if (Integer.parseInt(GroupedProcesses.status(pid, "Threads")) >= threads) {
          return pid;
        }
      } catch (IOException gone) {
        // A shim's step that ended between the listing and the reading.
      }
    }
    return 0;
  }

  /** v1's cpuacct.usage_percpu, in nanoseconds; empty on v2, which has no such file. */
  private static long[] perCpuUsage(WorkerCgroup group) throws IOException {
    if (support.version() != CgroupVersion.V1) {
      return new long[0];
    }
    String text = Files.readString(group.path(Controller.CPUACCT).resolve("cpuacct.usage_percpu"));
    return Arrays.stream(text.strip().split("\\s+")).mapToLong(Long::parseLong).toArray();
  }

  private static double cpuSecondsPerSecond(WorkerCgroup group, Duration window) throws Exception {
    long startNanos = System.nanoTime();
    Duration startUsage = group.cpuUsage();
    // The measuring window itself.
    Thread.sleep(window.toMillis());
    Duration used = group.cpuUsage().minus(startUsage);
    long elapsed = System.nanoTime() - startNanos;
    return (double) used.toNanos() / elapsed;
  }

  @Test
  void aNewGpuqListsTheGroupsAPreviousOneLeftAndRemovesThem() throws Exception {
    WorkerCgroup running = cgroups.create(new WorkerId("j-1", 1));
    WorkerCgroup moved = cgroups.create(new WorkerId("j-2", 3));
    // A process that was started elsewhere, moved in by gpuq (all its threads, every hierarchy).
    Process movedIn = new ProcessBuilder("sleep", "120").start();
    try {
      moved.addProcess(movedIn.pid());
      assertThat(moved.processes()).containsExactly(movedIn.pid());
      for (Path dir : moved.directories()) {
        assertThat(Files.readString(dir.resolve("cgroup.procs")).strip())
            .isEqualTo(String.valueOf(movedIn.pid()));
      }
    } finally {
      movedIn.destroyForcibly();
      movedIn.waitFor();
    }
    Process worker = processes.startIn(running, "sleep", "120");
    // The shell writes itself in just after it starts.
    await().atMost(Duration.ofSeconds(10)).until(() -> running.processes().contains(worker.pid()));
    // Not a worker's: left alone.
    Path stray = cgroups.parent(Controller.MEMORY).orElseThrow().resolve("not-a-worker");
    Files.createDirectory(stray);
    // A group a crash left half made: in the memory hierarchy only (v1).
    Path halfMade = cgroups.parent(Controller.MEMORY).orElseThrow().resolve("j-3@1");
    Files.createDirectory(halfMade);

    WorkerCgroups afterRestart = WorkerCgroups.open(support, parentName);

    assertThat(afterRestart.list())
        .containsExactly(new WorkerId("j-1", 1), new WorkerId("j-2", 3), new WorkerId("j-3", 1));
    WorkerCgroup adopted = afterRestart.find(new WorkerId("j-1", 1)).orElseThrow();
    assertThat(adopted.processes()).containsExactly(worker.pid());
    assertThat(adopted.remove()).as("holds a live worker").isFalse();
    assertThatThrownBy(() -> afterRestart.create(new WorkerId("j-1", 1)))
        .isInstanceOf(FileAlreadyExistsException.class);

    worker.destroyForcibly();
    worker.waitFor();
    for (WorkerId id : afterRestart.list()) {
      WorkerCgroup group = afterRestart.find(id).orElseThrow();
      await().atMost(Duration.ofSeconds(10)).until(group::remove);
    }

    assertThat(afterRestart.list()).isEmpty();
    for (Path dir : adopted.directories()) {
      assertThat(dir).doesNotExist();
    }
    assertThat(halfMade).doesNotExist();
    assertThat(stray).isDirectory();
    Files.delete(stray);
  }

  @Test
  void creatingAndRemovingManyGroupsLeavesNoResidue() throws Exception {
    List<WorkerCgroup> groups = new ArrayList<>();
    for (int i = 1; i <= 60; i++) {
      WorkerCgroup group = cgroups.create(new WorkerId("many-" + i, 1));
      group.limitMemory((64 + i) * MIB);
      groups.add(group);
    }
    List<Process> short_ = new ArrayList<>();
    for (int i = 0; i < groups.size(); i += 6) {
      short_.add(processes.startIn(groups.get(i), "true"));
    }
    for (Process process : short_) {
      assertThat(process.waitFor(30, TimeUnit.SECONDS)).isTrue();
      assertThat(process.exitValue()).isZero();
    }
    assertThat(cgroups.list()).hasSize(60);

    for (WorkerCgroup group : groups) {
      await().atMost(Duration.ofSeconds(10)).until(group::remove);
    }

    assertThat(cgroups.list()).isEmpty();
    for (Controller controller : Controller.values()) {
      Path parent = cgroups.parent(controller).orElse(null);
      if (parent != null) {
        try (DirectoryStream<Path> children =
            Files.newDirectoryStream(parent, Files::isDirectory)) {
          assertThat(children).as("groups left in %s", parent).isEmpty();
        }
      }
    }
  }

  @Test
  void aJobOfAnotherAccountCannotLeaveItsGroupNorRaiseItsLimitNorMakeGroups() throws Exception {
    assumeTrue(Files.isExecutable(Path.of("/usr/bin/setpriv")), "needs setpriv (util-linux)");
    assumeTrue(
        ProcessHandle.current().info().user().orElse("").equals("root"),
        "needs root, to start a job as another account");
    WorkerCgroup group = cgroups.create(new WorkerId("jail", 1));
    group.limitMemory(256 * MIB);
    Path memory = group.path(Controller.MEMORY);
    String limitFile =
        support.version() == CgroupVersion.V1 ? "memory.limit_in_bytes" : "memory.max";
    Path parentProcs = cgroups.parent(Controller.MEMORY).orElseThrow().resolve("cgroup.procs");
    Path ownProcs =
        support.hierarchy(Controller.MEMORY).orElseThrow().ownGroup().resolve("cgroup.procs");
    String attempts =
        """
        { echo $$ > '%s'; } 2>/dev/null && echo left-to-parent
        { echo $$ > '%s'; } 2>/dev/null && echo left-to-gpuqs-group
        { echo 1073741824 > '%s'; } 2>/dev/null && echo raised-limit
        mkdir '%s' 2>/dev/null && echo made-a-group
        grep -c '%s' /proc/$$/cgroup
        """
            .formatted(
                parentProcs,
                ownProcs,
                memory.resolve(limitFile),
                memory.resolve("sub"),
                group.id().directoryName());

    Process job =
        processes.startIn(
            group,
            "/usr/bin/setpriv",
            "--reuid=65534",
            "--regid=65534",
            "--clear-groups",
            // As launch drops to a job's account.
            "--no-new-privs",
            "--inh-caps=-all",
            "/bin/sh",
            "-c",
            attempts);

    assertThat(job.waitFor(30, TimeUnit.SECONDS)).isTrue();
    String output = GroupedProcesses.output(job).strip();
    assertThat(output).doesNotContain("left-to", "raised-limit", "made-a-group");
    // Still in its group in every hierarchy gpuq used.
    assertThat(Integer.parseInt(output)).isEqualTo(group.directories().size());
    assertThat(group.memoryLimit()).hasValue(256 * MIB);
  }

  @Test
  void v1CopiesMemoryNodesAndCapsSwapToo() throws Exception {
    assumeTrue(support.version() == CgroupVersion.V1, "this host's controllers are on cgroup v2");
    WorkerCgroup group = cgroups.create(new WorkerId("v1", 1));
    group.limitMemory(300 * MIB);
    Path cpuset = group.path(Controller.CPUSET);
    Path memory = group.path(Controller.MEMORY);

    assertThat(Files.readString(cpuset.resolve("cpuset.mems")).strip()).isNotEmpty();
    Path memsw = memory.resolve("memory.memsw.limit_in_bytes");
    if (Files.exists(memsw)) {
      assertThat(Files.readString(memsw).strip()).isEqualTo(String.valueOf(300 * MIB));
    }
    // Raising it again works in the other order.
    group.limitMemory(400 * MIB);
    assertThat(group.memoryLimit()).hasValue(400 * MIB);
  }

  @Test
  void v2EnablesCpusetAndMemoryForTheGroupsBelow() throws Exception {
    assumeTrue(
        support.version() == CgroupVersion.V2,
        "this host has its cpuset and memory controllers on cgroup v1 (cgroup v2 untested here)");
    Path parent = cgroups.parent(Controller.MEMORY).orElseThrow();
    assertThat(Files.readString(parent.resolve("cgroup.subtree_control")))
        .contains("cpuset", "memory");
    WorkerCgroup group = cgroups.create(new WorkerId("v2", 1));
    group.limitMemory(300 * MIB);
    assertThat(Files.readString(group.path(Controller.MEMORY).resolve("memory.max")).strip())
        .isEqualTo(String.valueOf(300 * MIB));
  }

  @Test
  void aProcessForkingBeyondItsGroupsProcessLimitIsHeldToItAndTheRefusalsAreCounted()
      throws Exception {
    assumeTrue(
        support.hierarchy(Controller.PIDS).isPresent(),
        "no pids controller: " + support.describe());
    WorkerCgroups limited = cgroups.withProcessLimit(50);
    WorkerCgroup group = limited.create(new WorkerId("forker", 1));

    // 120 sleepers asked for; the shell itself is one of the 50.
    Process forker =
        processes.startIn(
            group,
            "python3",
            "-c",
            """
            import os, subprocess
            started = refused = 0
            children = []
            for _ in range(120):
                try:
                    children.append(subprocess.Popen(['sleep', '600']))
                    started += 1
                except OSError:
                    refused += 1
            print('started', started, 'refused', refused, flush=True)
            for c in children:
                c.kill()
                c.wait()
            """);

    assertThat(forker.waitFor(120, TimeUnit.SECONDS)).isTrue();
    String output = GroupedProcesses.output(forker);
    System.out.printf("pids.max 50: %s, forkRefusals %d%n", output.strip(), group.forkRefusals());
    assertThat(group.processLimit()).hasValue(50);
    assertThat(output).contains("started 49 refused 71");
    assertThat(group.forkRefusals()).isPositive();
    await().atMost(Duration.ofSeconds(30)).until(group::remove);
  }

  @Test
  void aGroupGetsNoProcessLimitUnlessOneIsSet() throws Exception {
    assumeTrue(
        support.hierarchy(Controller.PIDS).isPresent(),
        "no pids controller: " + support.describe());
    WorkerCgroup group = cgroups.create(new WorkerId("unlimited", 1));

    assertThat(group.processLimit()).isEmpty();
    assertThat(group.forkRefusals()).isZero();
  }

  @Test
  void theParentsMemoryCapHoldsEveryWorkerWithoutACapOfItsOwn() throws Exception {
    cgroups.capMemory(256 * MIB);
    WorkerCgroup uncapped = cgroups.create(new WorkerId("uncapped", 1));

    Process hog =
        processes.startIn(
            uncapped,
            "python3",
            "-c",
            "b = bytearray(600 << 20)\n"
                + "for i in range(0, len(b), 4096): b[i] = 1\n"
                + "print('allocated', len(b))");

    assertThat(hog.waitFor(120, TimeUnit.SECONDS)).isTrue();
    assertThat(GroupedProcesses.output(hog)).doesNotContain("allocated");
    assertThat(cgroups.memoryCap()).hasValue(256 * MIB);
    assertThat(uncapped.memoryLimit()).isEmpty();
    assertThat(hog.exitValue()).isEqualTo(128 + 9);
    // The kernel counts the kill in the group of the process it killed, whoever's cap it was.
    assertThat(uncapped.oomKills()).isEqualTo(1);
  }
}
