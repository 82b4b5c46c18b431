package io.gpuq.confinement;

import static io.gpuq.confinement.CgroupFixture.allocating;
import static io.gpuq.support.JobJson.aJob;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.gpuq.cgroup.CpuList;
import io.gpuq.support.GpuqProcess;
import io.gpuq.support.HttpApi;
import io.gpuq.support.IntegrationTier;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

/** {@code gpuq.node.cgroups=off}: workers born bound to their cores, their memory not capped. */
@IntegrationTier
@DisplayName("Without cgroups (gpuq.node.cgroups=off)")
class AffinityFallbackTest {

  private static final String TOKEN = "fallback-admin-0123456789";
  private static final Duration SOON = Duration.ofMinutes(3);

  @Test
  void workers_are_bound_to_their_cores_by_affinity_and_their_memory_is_not_capped()
      throws Exception {
    Path dataDir = Files.createTempDirectory(Path.of("/tmp"), "gpuq-fallback-");
    Path release = dataDir.resolve("release");
    try (GpuqProcess gpuq =
        GpuqProcess.start(
            dataDir, TOKEN, "--gpuq.node.cgroups=off", "--gpuq.scheduler.cpu-slots=4")) {
      HttpApi admin = gpuq.api(TOKEN);
      JsonNode details = CgroupFixture.cgroupsHealth(admin);
      assertThat(details.get("mode").asString()).isEqualTo("affinity");
      assertThat(details.get("reason").asString()).contains("gpuq.node.cgroups=off");
      assertThat(details.get("memory").asString()).contains("not capped");
      assertThat(gpuq.output()).contains("WORKERS ARE NOT IN CGROUPS");

      String bound =
          admin.submit(
              aJob().cpus(1).shell("while [ ! -e " + release + " ]; do sleep 0.1; done").json());
      await().atMost(SOON).until(() -> CgroupFixture.workerPid(admin, bound) != null);
      long pid = CgroupFixture.workerPid(admin, bound);
      CpuList allowed = CpuList.parse(CgroupFixture.status(pid, "Cpus_allowed_list"));
      assertThat(allowed.count()).as("Cpus_allowed_list of worker %d", pid).isEqualTo(1);
      // Its view says so: recorded with its PID, in the same statement.
      JsonNode cores = admin.job(bound).get("attempts").get(0).get("cores");
      assertThat(cores.get("cpus").asString()).isEqualTo(allowed.toString());
      assertThat(cores.get("boundBy").asString()).isEqualTo("affinity");
      // Its children are born with the same mask.
      await().atMost(SOON).until(() -> !CgroupFixture.children(pid).isEmpty());
      for (long child : CgroupFixture.children(pid)) {
        String childMask = CgroupFixture.status(child, "Cpus_allowed_list");
        if (!childMask.isEmpty()) {
          assertThat(CpuList.parse(childMask)).isEqualTo(allowed);
        }
      }

      String uncapped = admin.submit(aJob().memory("64MiB").shell(allocating(300)).json());
      await()
          .atMost(SOON)
          .until(() -> List.of("SUCCEEDED", "FAILED").contains(admin.state(uncapped)));
      assertThat(admin.job(uncapped).get("state").asString()).isEqualTo("SUCCEEDED");
      assertThat(admin.get("/api/v1/jobs/" + uncapped + "/logs").body()).contains("allocated 300");

      Files.createFile(release);
      await().atMost(SOON).until(() -> admin.state(bound).equals("SUCCEEDED"));
    }
  }
}
