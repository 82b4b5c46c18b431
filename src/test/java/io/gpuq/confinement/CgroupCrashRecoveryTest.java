package io.gpuq.confinement;

import static io.gpuq.confinement.CgroupFixture.allocating;
import static io.gpuq.support.JobJson.aJob;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.gpuq.support.GpuqProcess;
import io.gpuq.support.HttpApi;
import io.gpuq.support.IntegrationTier;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIf;
import tools.jackson.databind.JsonNode;

/**
 * {@code kill -9} of a gpuq whose workers run in their cgroups: they keep running in them, the next
 * gpuq re-adopts them, each job ends exactly once, and no group is left behind.
 */
@IntegrationTier
@EnabledIf(
    value = "io.gpuq.confinement.CgroupFixture#cgroupsV1Usable",
    disabledReason = "needs root and cgroup v1 (v2 is tested where a machine has it)")
@DisplayName("A gpuq killed with SIGKILL leaves its workers in their cgroups")
class CgroupCrashRecoveryTest {

  private static final String TOKEN = "cgroup-crash-0123456789";
  private static final Duration SOON = Duration.ofMinutes(3);

  @Test
  void each_job_ends_once_and_no_cgroup_is_left_behind() throws Exception {
    Path dataDir = Files.createTempDirectory(Path.of("/tmp"), "gpuq-cgroup-crash-");
    Path whileDown = dataDir.resolve("while-down");
    Path underSecond = dataDir.resolve("under-second");
    Path stray = dataDir.resolve("stray.pid");
    String[] args = {"--gpuq.scheduler.cpu-slots=8"};
    String waitWhileDown = "while [ ! -e " + whileDown + " ]; do sleep 0.1; done; ";
    String waitUnderSecond = "while [ ! -e " + underSecond + " ]; do sleep 0.1; done; ";
    String endsWhileDown;
    String oomWhileDown;
    String endsUnderSecond;
    String leavesAStray;
    List<Path> parents;

    try (GpuqProcess first = GpuqProcess.start(dataDir, TOKEN, args)) {
      HttpApi api = first.api(TOKEN);
      parents = CgroupFixture.parents(api);
      endsWhileDown = api.submit(aJob().shell(waitWhileDown + "exit 0").json());
      oomWhileDown =
          api.submit(aJob().memory("128MiB").shell(waitWhileDown + allocating(600)).json());
      endsUnderSecond = api.submit(aJob().shell(waitUnderSecond + "exit 3").json());
      // A double fork into a session of its own: its orphan leaves the worker's process tree and
      // process group, not its cgroup.
      leavesAStray =
          api.submit(
              aJob()
                  .shell(
                      "(setsid sleep 1000 & echo $! > "
                          + stray
                          + ") ; "
                          + waitUnderSecond
                          + "exit 0")
                  .json());
      List<String> ids = List.of(endsWhileDown, oomWhileDown, endsUnderSecond, leavesAStray);
      await()
          .atMost(SOON)
          .until(() -> ids.stream().allMatch(id -> CgroupFixture.workerPid(api, id) != null));
      await().atMost(SOON).until(() -> Files.exists(stray));
      first.crash();
    }
    List<String> ids = List.of(endsWhileDown, oomWhileDown, endsUnderSecond, leavesAStray);
    for (String id : ids) {
      assertThat(CgroupFixture.workerGroups(parents))
          .as("groups after the crash")
          .anyMatch(group -> group.endsWith("/" + id + "@1"));
    }
    long strayPid = Long.parseLong(Files.readString(stray).strip());
    Files.createFile(whileDown);
    await()
        .atMost(SOON)
        .until(
            () ->
                Files.exists(dataDir.resolve("jobs/" + endsWhileDown + "/attempt-1.exit"))
                    && Files.exists(dataDir.resolve("jobs/" + oomWhileDown + "/attempt-1.exit")));

    try (GpuqProcess second = GpuqProcess.start(dataDir, TOKEN, args)) {
      HttpApi api = second.api(TOKEN);
      assertThat(CgroupFixture.parents(api)).isEqualTo(parents);
      Files.createFile(underSecond);
      await()
          .atMost(SOON)
          .until(
              () ->
                  ids.stream()
                      .allMatch(id -> List.of("SUCCEEDED", "FAILED").contains(api.state(id))));
      Map<String, String> expected =
          Map.of(
              endsWhileDown, "SUCCEEDED",
              oomWhileDown, "FAILED",
              endsUnderSecond, "FAILED",
              leavesAStray, "SUCCEEDED");
      for (String id : ids) {
        JsonNode job = api.job(id);
        assertThat(job.get("state").asString()).as("%s", job).isEqualTo(expected.get(id));
        assertThat(job.get("attempts").size()).as("attempts of %s", id).isEqualTo(1);
      }
      assertThat(api.job(oomWhileDown).get("failureReason").asString())
          .isEqualTo("HOST_OUT_OF_MEMORY");
      assertThat(api.job(endsUnderSecond).get("exitCode").asInt()).isEqualTo(3);
      await()
          .atMost(SOON)
          .untilAsserted(() -> assertThat(CgroupFixture.workerGroups(parents)).isEmpty());
      await()
          .atMost(SOON)
          .until(
              () -> {
                String state = CgroupFixture.status(strayPid, "State");
                // Gone, or a zombie its new parent has yet to reap.
                return state.isEmpty() || state.startsWith("Z");
              });
      System.out.printf(
          "after kill -9 and restart: %s, each attempt once; worker groups left: %s%n",
          expected, CgroupFixture.workerGroups(parents));
    }
  }
}
