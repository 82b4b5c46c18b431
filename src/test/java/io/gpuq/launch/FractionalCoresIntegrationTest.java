package io.gpuq.launch;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.gpuq.cgroup.Affinity;
import io.gpuq.cgroup.CgroupSupport;
import io.gpuq.cgroup.CgroupVersion;
import io.gpuq.cgroup.Controller;
import io.gpuq.cgroup.CoreAllocator;
import io.gpuq.cgroup.CpuList;
import io.gpuq.cgroup.GroupedProcesses;
import io.gpuq.cgroup.WorkerCgroup;
import io.gpuq.cgroup.WorkerCgroups;
import io.gpuq.cgroup.WorkerId;
import io.gpuq.job.HostResources;
import io.gpuq.support.IntegrationTier;
import io.gpuq.text.Cpus;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * Workers that ask for a fraction of a core, in real cgroups (v1 here, v2 where a machine has it):
 * they share a pool of cores and each is held to its fraction by CPU bandwidth, as the kernel's own
 * counters show. Needs root (or a delegated cgroup with the cpu controller); skipped, saying why,
 * otherwise.
 */
@IntegrationTier
@DisplayName("Fractions of a core, in real cgroups")
class FractionalCoresIntegrationTest {

  private static CgroupSupport support;

  private final GroupedProcesses processes = new GroupedProcesses();
  private WorkerCgroups cgroups;
  private CoreAllocator cores;
  private WorkerConfinement confinement;
  private final List<WorkerId> prepared = new ArrayList<>();

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
    assumeTrue(
        cgroups.limitsCpu(), "no cpu controller for the workers' groups: no CPU bandwidth here");
    cores = new CoreAllocator(Affinity.ofThisProcess());
    // On a busy machine the test's parent group, one entity beside every other process, would get
    // too little of the core for its workers to reach their quotas: weighted up (this test's
    // group only), it is the quota, not the machine's load, that holds each back.
    Path parent = cgroups.parent(Controller.CPU).orElseThrow();
    if (support.version() == CgroupVersion.V1) {
      Files.writeString(parent.resolve("cpu.shares"), "262144");
    } else {
      Files.writeString(parent.resolve("cpu.weight"), "10000");
    }
    confinement = WorkerConfinement.inCgroups(cgroups, cores);
  }

  @AfterEach
  void removeEverything() throws Exception {
    processes.close();
    if (confinement == null) {
      return;
    }
    for (WorkerId id : prepared) {
      confinement.end(id.jobId(), id.attempt());
    }
    for (WorkerId id : cgroups.list()) {
      WorkerCgroup group = cgroups.find(id).orElseThrow();
      group.processes().forEach(pid -> ProcessSignals.signal(pid, ProcessSignals.SIGKILL));
      await().atMost(Duration.ofSeconds(10)).until(group::remove);
    }
    confinement.close();
  }

  @Test
  void four_quarter_core_workers_run_together_on_one_core_each_held_to_its_quarter()
      throws Exception {
    List<WorkerCgroup> groups = new ArrayList<>();
    for (int i = 1; i <= 4; i++) {
      WorkerConfinement.Confined confined =
          prepare("quarter-" + i, new HostResources(Cpus.ofMillis(250), null));
      WorkerCgroup group = cgroups.find(new WorkerId("quarter-" + i, 1)).orElseThrow();
      groups.add(group);
      assertThat(confined.cores().count()).isEqualTo(1);
    }
    CpuList pool = cores.pool();
    assertThat(pool.count()).as("one core's worth for four quarters").isEqualTo(1);
    for (WorkerCgroup group : groups) {
      assertThat(group.cpus()).isEqualTo(pool);
      assertThat(group.cpuLimit()).hasValue(250);
    }

    // A busy loop in each: together they may use the one core, each no more than its quarter.
    for (WorkerCgroup group : groups) {
      processes.startIn(group, "python3", "-c", "while True: pass");
    }
    for (WorkerCgroup group : groups) {
      await()
          .atMost(Duration.ofSeconds(60))
          .until(() -> group.cpuUsage().compareTo(Duration.ofMillis(50)) > 0);
    }

    long[] throttledBefore = new long[groups.size()];
    Duration[] usedBefore = new Duration[groups.size()];
    for (int i = 0; i < groups.size(); i++) {
      throttledBefore[i] = throttled(groups.get(i));
      usedBefore[i] = groups.get(i).cpuUsage();
    }
    long start = System.nanoTime();
    // The measuring window itself, the kernel's counters read at both ends: 3 s at least, and on a
    // busy machine (where a loop may get less than its quarter for a while) until each has met its
    // quota at least once.
    await()
        .pollDelay(Duration.ofSeconds(3))
        .atMost(Duration.ofSeconds(60))
        .until(
            () -> {
              for (int i = 0; i < groups.size(); i++) {
                if (throttled(groups.get(i)) == throttledBefore[i]) {
                  return false;
                }
              }
              return true;
            });
    long elapsed = System.nanoTime() - start;
    double total = 0;
    for (int i = 0; i < groups.size(); i++) {
      WorkerCgroup group = groups.get(i);
      double rate = (double) group.cpuUsage().minus(usedBefore[i]).toNanos() / elapsed;
      long throttled = throttled(group) - throttledBefore[i];
      System.out.printf(
          "%s: %.3f CPU-seconds per second, throttled %d times%n", group.id(), rate, throttled);
      total += rate;
      // Generous: a quarter, with room for the kernel's accounting; a free loop would take a core.
      assertThat(rate).as("%s's rate", group.id()).isGreaterThan(0.0).isLessThan(0.45);
      assertThat(throttled).as("%s held back by its quota", group.id()).isPositive();
    }
    assertThat(total).as("the four together").isLessThan(1.3);
  }

  @Test
  void whole_core_workers_keep_cores_of_their_own_beside_the_pool_and_no_quota() throws Exception {
    assumeTrue(cores.usable().count() >= 2, "needs two usable cores");
    prepare("quarter", new HostResources(Cpus.ofMillis(250), null));
    WorkerConfinement.Confined whole = prepare("whole", new HostResources(1, null));

    WorkerCgroup wholeGroup = cgroups.find(new WorkerId("whole", 1)).orElseThrow();
    assertThat(whole.cores().count()).isEqualTo(1);
    assertThat(whole.cores()).isNotEqualTo(cores.pool());
    assertThat(wholeGroup.cpus()).isEqualTo(whole.cores());
    assertThat(wholeGroup.cpuLimit()).isEmpty();
  }

  @Test
  void the_pool_grows_for_its_members_and_their_groups_follow_it() throws Exception {
    assumeTrue(cores.usable().count() >= 2, "needs two usable cores");
    prepare("half-1", new HostResources(Cpus.ofMillis(500), null));
    prepare("half-2", new HostResources(Cpus.ofMillis(500), null));
    WorkerCgroup first = cgroups.find(new WorkerId("half-1", 1)).orElseThrow();
    assertThat(first.cpus().count()).isEqualTo(1);

    prepare("tenth", new HostResources(Cpus.ofMillis(100), null));

    assertThat(cores.pool().count()).isEqualTo(2);
    assertThat(first.cpus()).isEqualTo(cores.pool());

    confinement.end("tenth", 1);
    prepared.remove(new WorkerId("tenth", 1));
    assertThat(cores.pool().count()).isEqualTo(1);
    assertThat(first.cpus()).isEqualTo(cores.pool());
  }

  private WorkerConfinement.Confined prepare(String jobId, HostResources host) throws Exception {
    WorkerConfinement.Confined confined = confinement.prepare(jobId, 1, host);
    prepared.add(new WorkerId(jobId, 1));
    return confined;
  }

  /** The kernel's count of periods in which the group used up its quota (v1 and v2 cpu.stat). */
  private static long throttled(WorkerCgroup group) throws IOException {
    Path stat = group.path(Controller.CPU).resolve("cpu.stat");
    for (String line : Files.readAllLines(stat)) {
      String[] fields = line.strip().split("\\s+");
      if (fields.length == 2 && fields[0].equals("nr_throttled")) {
        return Long.parseLong(fields[1]);
      }
    }
    throw new IOException(stat + " has no nr_throttled");
  }
}
