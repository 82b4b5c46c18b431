package io.gpuq.confinement;

import static io.gpuq.confinement.CgroupFixture.MIB;
import static io.gpuq.confinement.CgroupFixture.allocating;
import static io.gpuq.support.JobJson.aJob;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.gpuq.cgroup.CpuList;
import io.gpuq.support.IntegrationTest;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIf;
import tools.jackson.databind.JsonNode;

/**
 * Workers in cgroups of their own, for real, through gpuq's API: as root on this machine's cgroup
 * v1. A machine with v2 only, or without root, skips them (detection says why in the report).
 */
@EnabledIf(
    value = "io.gpuq.confinement.CgroupFixture#cgroupsV1Usable",
    disabledReason = "needs root and cgroup v1 (v2 is tested where a machine has it)")
@DisplayName("Workers in cgroups")
class WorkersInCgroupsTest extends IntegrationTest {

  private static final Duration SOON = Duration.ofMinutes(2);

  @Test
  void the_health_details_say_workers_run_in_cgroups() {
    JsonNode details = CgroupFixture.cgroupsHealth(admin);

    assertThat(details.get("configured").asString()).isEqualTo("auto");
    assertThat(details.get("mode").asString()).isEqualTo("cgroups");
    assertThat(details.get("memory").asString()).contains("capped");
    assertThat(CgroupFixture.parents(admin)).isNotEmpty();
    // New in issue 34: the jobs together capped, each held to a number of processes, workers
    // taken by the OOM killer before gpuq.
    assertThat(details.get("memoryTogether").asString()).startsWith("capped at");
    assertThat(details.get("processes").asString()).contains("at most 4096 tasks");
    assertThat(details.at("/oomScoreAdj/workersWithoutMemory").asInt()).isEqualTo(1000);
    assertThat(details.at("/oomScoreAdj/gpuq").asInt()).isLessThanOrEqualTo(0);
    // The tests' jobs run as the tests' own account, which is gpuq's.
    assertThat(details.path("notEnforcedFor").asString())
        .as("%s", details)
        .contains("gpuq's own account");
  }

  @Test
  void a_job_over_its_memory_cap_ends_HOST_OUT_OF_MEMORY_while_its_neighbour_lives()
      throws Exception {
    Path release = Files.createTempFile(dataDir(), "neighbour", ".go");
    Files.delete(release);
    String neighbour =
        alice.submit(
            aJob()
                .memory("256MiB")
                .shell("while [ ! -e " + release + " ]; do sleep 0.1; done; " + allocating(100))
                .json());
    await().atMost(SOON).until(() -> alice.state(neighbour).equals("RUNNING"));

    String hog = alice.submit(aJob().memory("256MiB").shell(allocating(600)).json());

    await().atMost(SOON).until(() -> alice.state(hog).equals("FAILED"));
    JsonNode failed = alice.job(hog);
    assertThat(failed.get("failureReason").asString()).isEqualTo("HOST_OUT_OF_MEMORY");
    assertThat(failed.get("failureMessage").asString()).contains("256MiB");
    assertThat(alice.state(neighbour)).isEqualTo("RUNNING");
    Files.createFile(release);
    await().atMost(SOON).until(() -> alice.state(neighbour).equals("SUCCEEDED"));
    assertThat(alice.get("/api/v1/jobs/" + neighbour + "/logs").body()).contains("allocated 100");
    List<Path> parents = CgroupFixture.parents(admin);
    await()
        .atMost(SOON)
        .untilAsserted(
            () ->
                assertThat(CgroupFixture.workerGroups(parents))
                    .noneMatch(group -> group.endsWith("/" + hog + "@1"))
                    .noneMatch(group -> group.endsWith("/" + neighbour + "@1")));
  }

  @Test
  void after_HOST_OUT_OF_MEMORY_the_job_is_retried_with_its_host_memory_grown() {
    String id =
        alice.submit(
            aJob().memory("256MiB").maxAttempts(2).oomGrowth(3).shell(allocating(600)).json());

    await().atMost(SOON).until(() -> List.of("SUCCEEDED", "FAILED").contains(alice.state(id)));
    JsonNode job = alice.job(id);
    assertThat(job.get("state").asString()).as("%s", job).isEqualTo("SUCCEEDED");
    assertThat(job.get("attempts").get(0).get("failureReason").asString())
        .isEqualTo("HOST_OUT_OF_MEMORY");
    assertThat(job.at("/resources/memory").asLong()).isEqualTo(256 * MIB);
    assertThat(job.at("/effectiveResources/memory").asLong()).isEqualTo(768 * MIB);
    assertThat(alice.get("/api/v1/jobs/" + id + "/logs").body()).contains("allocated 600");
  }

  @Test
  void a_job_with_one_core_gets_at_most_one_core_of_cpu_time() throws Exception {
    Path release = Files.createTempFile(dataDir(), "busy", ".stop");
    Files.delete(release);
    // Two threads busy hashing (hashlib lets go of the GIL for large buffers), until told to stop.
    String busy =
        "import hashlib, os, threading\n"
            + "data = b'x' * (1 << 20)\n"
            + "def spin():\n"
            + "    while not os.path.exists('"
            + release
            + "'):\n"
            + "        hashlib.sha256(data).digest()\n"
            + "threads = [threading.Thread(target=spin) for _ in range(2)]\n"
            + "[t.start() for t in threads]\n"
            + "[t.join() for t in threads]\n";
    String id = alice.submit(aJob().cpus(1).command("python3", "-c", busy).json());
    try {
      List<Path> parents = CgroupFixture.parents(admin);
      String worker = id + "@1";
      AtomicReference<Path> cpuacct = new AtomicReference<>();
      await()
          .atMost(SOON)
          .until(
              () -> {
                CgroupFixture.groupWith(parents, worker, "cpuacct.usage").ifPresent(cpuacct::set);
                return cpuacct.get() != null
                    && Long.parseLong(CgroupFixture.read(cpuacct.get().resolve("cpuacct.usage")))
                        > 0;
              });
      Path cpuset = CgroupFixture.groupWith(parents, worker, "cpuset.cpus").orElseThrow();
      CpuList cores = CpuList.parse(CgroupFixture.read(cpuset.resolve("cpuset.cpus")));
      assertThat(cores.count()).isEqualTo(1);
      // Its view names the same core, and that its cgroup holds it there.
      await()
          .atMost(SOON)
          .untilAsserted(
              () -> {
                JsonNode attempt = alice.get("/api/v1/jobs/" + id).json().get("attempts").get(0);
                assertThat(attempt.get("cores").get("cpus").asString()).isEqualTo(cores.toString());
                assertThat(attempt.get("cores").get("boundBy").asString()).isEqualTo("cgroup");
              });

      long startNanos = System.nanoTime();
      long startUsage = usage(cpuacct.get());
      long[] startPerCpu = perCpu(cpuacct.get());
      // Measures over 3 s: the wait is the measurement, not a guess that something is ready.
      await()
          .pollDelay(Duration.ofSeconds(3))
          .atMost(Duration.ofSeconds(10))
          .until(() -> System.nanoTime() - startNanos >= 3_000_000_000L);
      long usage = usage(cpuacct.get()) - startUsage;
      long elapsed = System.nanoTime() - startNanos;
      long[] endPerCpu = perCpu(cpuacct.get());
      double cpuSecondsPerSecond = (double) usage / elapsed;

      System.out.printf(
          "job with cpus: 1 and two busy threads: %.2f CPU-seconds per second on cores %s%n",
          cpuSecondsPerSecond, cores);
      assertThat(alice.state(id)).isEqualTo("RUNNING");
      assertThat(cpuSecondsPerSecond).isGreaterThan(0).isLessThanOrEqualTo(1.2);
      // Whatever the machine's load: no time at all on a core that is not its own.
      for (int cpu = 0; cpu < endPerCpu.length; cpu++) {
        if (!cores.contains(cpu)) {
          assertThat(endPerCpu[cpu] - startPerCpu[cpu]).as("time on CPU %d", cpu).isZero();
        }
      }
    } finally {
      Files.createFile(release);
    }
    await().atMost(SOON).until(() -> alice.state(id).equals("SUCCEEDED"));
  }

  @Test
  void cancel_and_timeout_stop_every_process_of_the_group_even_one_that_left_the_tree()
      throws Exception {
    List<Path> parents = CgroupFixture.parents(admin);
    Path cancelledStray = Files.createTempFile(dataDir(), "cancelled", ".pid");
    Path timedOutStray = Files.createTempFile(dataDir(), "timed-out", ".pid");
    // setsid in a subshell: the sleep leaves the worker's process tree and process group, and
    // ignores SIGTERM; only its cgroup still holds it.
    String cancelled = alice.submit(aJob().shell(stray(cancelledStray) + "sleep 600").json());
    String timedOut =
        alice.submit(aJob().timeout("PT3S").shell(stray(timedOutStray) + "sleep 600").json());
    await()
        .atMost(SOON)
        .until(() -> Files.size(cancelledStray) > 0 && Files.size(timedOutStray) > 0);
    long cancelledPid = Long.parseLong(Files.readString(cancelledStray).strip());
    long timedOutPid = Long.parseLong(Files.readString(timedOutStray).strip());
    assertThat(CgroupFixture.status(cancelledPid, "State")).isNotEmpty();

    assertThat(alice.post("/api/v1/jobs/" + cancelled + "/cancel").status()).isEqualTo(200);

    await().atMost(SOON).until(() -> alice.state(timedOut).equals("FAILED"));
    assertThat(alice.job(timedOut).get("failureReason").asString()).isEqualTo("TIMEOUT");
    await()
        .atMost(SOON)
        .untilAsserted(
            () -> {
              assertThat(gone(cancelledPid)).as("the cancelled job's stray").isTrue();
              assertThat(gone(timedOutPid)).as("the timed-out job's stray").isTrue();
              assertThat(CgroupFixture.workerGroups(parents))
                  .noneMatch(group -> group.endsWith("/" + cancelled + "@1"))
                  .noneMatch(group -> group.endsWith("/" + timedOut + "@1"));
            });
  }

  private static String stray(Path pidFile) {
    return "(trap '' TERM; exec setsid sh -c 'trap \"\" TERM; echo $$ > "
        + pidFile
        + "; while :; do sleep 1; done') & ";
  }

  /** Gone, or a zombie its new parent has yet to reap. */
  private static boolean gone(long pid) {
    String state = CgroupFixture.status(pid, "State");
    return state.isEmpty() || state.startsWith("Z");
  }

  private static long usage(Path group) {
    return Long.parseLong(CgroupFixture.read(group.resolve("cpuacct.usage")));
  }

  private static long[] perCpu(Path group) {
    String[] fields = CgroupFixture.read(group.resolve("cpuacct.usage_percpu")).split("\\s+");
    long[] perCpu = new long[fields.length];
    for (int i = 0; i < fields.length; i++) {
      perCpu[i] = Long.parseLong(fields[i]);
    }
    return perCpu;
  }
}
