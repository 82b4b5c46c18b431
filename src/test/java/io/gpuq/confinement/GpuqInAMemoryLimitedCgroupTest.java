package io.gpuq.confinement;

import static io.gpuq.confinement.CgroupFixture.MIB;
import static io.gpuq.support.JobJson.aJob;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.gpuq.cgroup.CgroupSupport;
import io.gpuq.cgroup.Controller;
import io.gpuq.cgroup.OomScoreAdj;
import io.gpuq.support.GpuqProcess;
import io.gpuq.support.HttpApi;
import io.gpuq.support.IntegrationTier;
import java.io.IOException;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIf;
import tools.jackson.databind.JsonNode;

/**
 * gpuq as a container runs it: a separate JVM in a memory cgroup of 1.5 GiB that this test makes
 * (as Docker's {@code --memory} or a Kubernetes limit would), with jobs that set no {@code memory}
 * and grow past it, and with a per-job process limit of 50. Real cgroups (v1 here); needs root.
 */
@IntegrationTier
@EnabledIf(
    value = "io.gpuq.confinement.CgroupFixture#cgroupsV1Usable",
    disabledReason = "needs root and cgroup v1 (v2 is tested where a machine has it)")
@DisplayName("gpuq in a memory-limited cgroup")
class GpuqInAMemoryLimitedCgroupTest {

  private static final String TOKEN = "contained-gpuq-0123456789";
  private static final long CONTAINER_LIMIT = 1536 * MIB;
  private static final Duration SOON = Duration.ofMinutes(3);
  private static final String[] ARGS = {
    "--gpuq.scheduler.cpu-slots=8", "--gpuq.worker.max-processes=50"
  };

  private Path container;
  private Path dataDir;

  @BeforeEach
  void makeTheContainer() throws IOException {
    Path own = CgroupSupport.detect().hierarchy(Controller.MEMORY).orElseThrow().ownGroup();
    byte[] random = new byte[4];
    ThreadLocalRandom.current().nextBytes(random);
    container = own.resolve("gpuq-container-" + HexFormat.of().formatHex(random));
    Files.createDirectory(container);
    write(container.resolve("memory.limit_in_bytes"), CONTAINER_LIMIT);
    Path memsw = container.resolve("memory.memsw.limit_in_bytes");
    if (Files.exists(memsw)) {
      write(memsw, CONTAINER_LIMIT);
    }
    dataDir = Files.createTempDirectory(Path.of("/tmp"), "gpuq-contained-");
  }

  @AfterEach
  void removeTheContainer() throws Exception {
    await()
        .atMost(Duration.ofMinutes(1))
        .until(
            () -> {
              List<Path> groups = groupsBelow(container);
              for (Path group : groups) {
                for (String pid : Files.readAllLines(group.resolve("cgroup.procs"))) {
                  new ProcessBuilder("kill", "-9", pid.strip()).start().waitFor();
                }
              }
              // Deepest first: a cgroup with children cannot go.
              for (int i = groups.size() - 1; i >= 0; i--) {
                try {
                  Files.deleteIfExists(groups.get(i));
                } catch (IOException busy) {
                  return false;
                }
              }
              return true;
            });
  }

  @Test
  void a_job_without_memory_that_outgrows_the_container_is_killed_not_gpuq_also_across_a_restart()
      throws Exception {
    List<Path> parents;
    String outgrows;
    String forks;
    String growsWhileDown;
    try (GpuqProcess gpuq = GpuqProcess.start(inContainer(), dataDir, TOKEN, ARGS)) {
      HttpApi api = gpuq.api(TOKEN);
      parents = CgroupFixture.parents(api);

      // The jobs together are capped at what the node gives them: 1.5 GiB less its reservation.
      long allocatable = api.get("/api/v1/nodes").json().get(0).at("/memory/allocatable").asLong();
      Path memoryParent =
          parents.stream()
              .filter(p -> Files.exists(p.resolve("memory.limit_in_bytes")))
              .findFirst()
              .orElseThrow();
      long parentLimit =
          Long.parseLong(CgroupFixture.read(memoryParent.resolve("memory.limit_in_bytes")));
      assertThat(allocatable).isPositive().isLessThan(CONTAINER_LIMIT);
      // The kernel keeps a limit in whole pages.
      assertThat(parentLimit).isLessThanOrEqualTo(allocatable).isGreaterThan(allocatable - 65536);
      assertThat(memoryParent.startsWith(container)).isTrue();
      assertThat(OomScoreAdj.of(gpuq.pid()).orElseThrow())
          .isEqualTo(hasCapSysResource(gpuq.pid()) ? OomScoreAdj.GPUQ : 0);

      // 2 GiB, 32 MiB at a time: past the parent's cap, and past the container's.
      outgrows =
          api.submit(
              aJob().shell("cat /proc/self/oom_score_adj; " + growing(2048, 32, 0.05)).json());
      await().atMost(SOON).until(() -> api.state(outgrows).equals("FAILED"));
      JsonNode failed = api.job(outgrows);
      assertThat(failed.get("failureReason").asString())
          .as("%s", failed)
          .isEqualTo("HOST_OUT_OF_MEMORY");
      assertThat(failed.get("failureMessage").asString()).contains("set no resources.memory");
      assertThat(gpuq.hasExited()).isFalse();
      assertThat(api.get("/actuator/health").status()).isEqualTo(200);
      String log = api.get("/api/v1/jobs/" + outgrows + "/logs").body();
      assertThat(log.lines().findFirst()).hasValue(String.valueOf(OomScoreAdj.UNCAPPED_WORKER));
      assertThat(log).contains("grown to 128 MiB").doesNotContain("grown to 2048 MiB");

      // 120 sleepers, with a limit of 50 processes and threads per job.
      forks =
          api.submit(
              aJob()
                  .memory("256MiB")
                  .shell(
                      "cat /proc/self/oom_score_adj; i=0; while [ $i -lt 120 ]; do sleep 600 &"
                          + " i=$((i+1)); done; exit 3")
                  .json());
      await().atMost(SOON).until(() -> api.state(forks).equals("FAILED"));
      JsonNode limited = api.job(forks);
      assertThat(limited.get("failureMessage").asString())
          .as("%s", limited)
          .contains("reached its limit of 50 processes and threads (gpuq.worker.max-processes)");
      assertThat(api.get("/api/v1/jobs/" + forks + "/logs").body())
          .startsWith(String.valueOf(OomScoreAdj.CAPPED_WORKER))
          .contains("=== gpuq: it reached its limit of 50 processes");
      await()
          .atMost(SOON)
          .untilAsserted(
              () ->
                  assertThat(CgroupFixture.workerGroups(parents))
                      .noneMatch(group -> group.endsWith("/" + outgrows + "@1"))
                      .noneMatch(group -> group.endsWith("/" + forks + "@1")));

      // The crash loop of the issue: a job still growing while gpuq is down and starts again.
      growsWhileDown = api.submit(aJob().shell(growing(2048, 16, 0.25)).json());
      await()
          .atMost(SOON)
          .until(
              () ->
                  api.get("/api/v1/jobs/" + growsWhileDown + "/logs")
                      .body()
                      .contains("grown to 64 MiB"));
      Long worker = CgroupFixture.workerPid(api, growsWhileDown);
      String wrapperLine = CgroupFixture.commandLine(worker);
      // The wrapper's children: the job's program, with the worker's score, and the log keeper, a
      // copy of the wrapper's shell that keeps the wrapper's.
      List<Long> jobsOwn =
          CgroupFixture.children(worker).stream()
              .filter(child -> !CgroupFixture.commandLine(child).equals(wrapperLine))
              .toList();
      assertThat(jobsOwn).isNotEmpty();
      for (long child : jobsOwn) {
        assertThat(OomScoreAdj.of(child)).hasValue(OomScoreAdj.UNCAPPED_WORKER);
      }
      gpuq.crash();
    }
    try (GpuqProcess again = GpuqProcess.start(inContainer(), dataDir, TOKEN, ARGS)) {
      HttpApi api = again.api(TOKEN);
      await().atMost(SOON).until(() -> api.state(growsWhileDown).equals("FAILED"));
      JsonNode failed = api.job(growsWhileDown);
      assertThat(failed.get("failureReason").asString())
          .as("%s", failed)
          .isEqualTo("HOST_OUT_OF_MEMORY");
      assertThat(again.hasExited()).isFalse();
      assertThat(api.get("/actuator/health").status()).isEqualTo(200);
      await()
          .atMost(SOON)
          .untilAsserted(() -> assertThat(CgroupFixture.workerGroups(parents)).isEmpty());
      System.out.printf(
          "gpuq in a %d MiB cgroup: %s and %s ended HOST_OUT_OF_MEMORY, %s failed at its process"
              + " limit; gpuq and its restart lived%n",
          CONTAINER_LIMIT / MIB, outgrows, growsWhileDown, forks);
    }
  }

  /** A python3 program that grows to {@code mib} MiB, {@code step} at a time, saying so. */
  private static String growing(int mib, int step, double pause) {
    return "python3 -c 'import time\nchunks = []\nfor n in range("
        + step
        + ", "
        + (mib + 1)
        + ", "
        + step
        + "):\n    b = bytearray("
        + step
        + " << 20)\n    for i in range(0, len(b), 4096): b[i] = 1\n    chunks.append(b)\n"
        + "    print(\"grown to\", n, \"MiB\", flush=True)\n    time.sleep("
        + pause
        + ")'";
  }

  /** A command prefix that enters the container's cgroup, then runs gpuq's JVM in it. */
  private List<String> inContainer() {
    return List.of(
        "/bin/sh",
        "-c",
        "echo $$ > '" + container.resolve("cgroup.procs") + "' && exec \"$@\"",
        "sh");
  }

  private static boolean hasCapSysResource(long pid) throws IOException {
    for (String line : Files.readAllLines(Path.of("/proc/" + pid + "/status"))) {
      if (line.startsWith("CapEff:")) {
        return new BigInteger(line.substring(7).strip(), 16).testBit(24);
      }
    }
    return false;
  }

  private static void write(Path file, long value) throws IOException {
    Files.write(
        file, Long.toString(value).getBytes(StandardCharsets.US_ASCII), StandardOpenOption.WRITE);
  }

  /** The group and every group below it, parents before their children. */
  private static List<Path> groupsBelow(Path group) throws IOException {
    List<Path> groups = new ArrayList<>();
    if (!Files.isDirectory(group)) {
      return groups;
    }
    groups.add(group);
    try (DirectoryStream<Path> children = Files.newDirectoryStream(group, Files::isDirectory)) {
      for (Path child : children) {
        groups.addAll(groupsBelow(child));
      }
    }
    return groups;
  }
}
