package io.gpuq.node;

import static io.gpuq.support.JobJson.aJob;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.gpuq.support.GpuqCluster;
import io.gpuq.support.HttpApi;
import io.gpuq.support.IntegrationTier;
import io.gpuq.support.PostgresSupport;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

@IntegrationTier
@DisplayName("Several gpuq nodes on one PostgreSQL")
class ClusterTest {

  private static Path newRoot(String prefix) throws Exception {
    return Files.createTempDirectory(
        Files.createDirectories(Path.of("target/test-data")).toAbsolutePath(), prefix);
  }

  @Test
  void three_nodes_run_500_jobs_each_exactly_once() throws Exception {
    Path root = newRoot("cluster-");
    Path ran = root.resolve("ran.txt");
    GpuqCluster cluster = new GpuqCluster(PostgresSupport.freshDatabase(), root);
    try (GpuqCluster.Node a = cluster.start("node-a", "--gpuq.scheduler.cpu-slots=6");
        GpuqCluster.Node b = cluster.start("node-b", "--gpuq.scheduler.cpu-slots=6");
        GpuqCluster.Node c = cluster.start("node-c", "--gpuq.scheduler.cpu-slots=6")) {
      List<HttpApi> apis = List.of(a.api(), b.api(), c.api());
      List<String> ids = new ArrayList<>();
      String body =
          aJob().shell("echo $GPUQ_JOB_ID >> " + ran).label("suite", "cluster-500").json();
      for (int i = 0; i < 500; i++) {
        ids.add(apis.get(i % 3).submit(body));
      }

      await()
          .atMost(Duration.ofMinutes(4))
          .pollInterval(Duration.ofSeconds(1))
          .until(() -> succeeded(apis.get(0), "cluster-500") == 500);

      Map<String, Long> runs =
          Files.readAllLines(ran).stream()
              .collect(Collectors.groupingBy(Function.identity(), Collectors.counting()));
      assertThat(runs).hasSize(500);
      assertThat(runs.keySet()).containsExactlyInAnyOrderElementsOf(ids);
      assertThat(runs.values()).allMatch(count -> count == 1);
      Set<String> nodes = new HashSet<>();
      for (int i = 0; i < 500; i += 25) {
        JsonNode job = apis.get(1).job(ids.get(i));
        assertThat(job.get("attempts")).hasSize(1);
        nodes.add(job.get("placement").get("node").asString());
      }
      assertThat(nodes).hasSizeGreaterThan(1);
      var first = apis.get(0).post("/api/v1/jobs", aJob().json(), "Idempotency-Key", "k-1");
      var again = apis.get(1).post("/api/v1/jobs", aJob().json(), "Idempotency-Key", "k-1");
      assertThat(first.status()).isEqualTo(201);
      assertThat(again.status()).isEqualTo(200);
      assertThat(again.json().get("id").asString()).isEqualTo(first.json().get("id").asString());
      JsonNode gpus = apis.get(2).get("/api/v1/gpus").json();
      Set<String> gpuNodes = new HashSet<>();
      gpus.forEach(gpu -> gpuNodes.add(gpu.get("node").asString()));
      assertThat(gpuNodes).containsExactlyInAnyOrder("node-a", "node-b", "node-c");
    }
  }

  @Test
  void a_silent_nodes_jobs_are_requeued_elsewhere_and_its_stale_workers_stopped_when_it_returns()
      throws Exception {
    Path root = newRoot("node-death-");
    Path shared = Files.createDirectories(root.resolve("shared"));
    GpuqCluster cluster = new GpuqCluster(PostgresSupport.freshDatabase(), root);
    // The first attempt of each job sleeps long; the retry, wherever it runs, ends at once.
    String script =
        "if mkdir "
            + shared
            + "/$GPUQ_JOB_ID 2>/dev/null; then sleep 60; fi; echo $GPUQ_JOB_ID >> "
            + shared
            + "/ran.txt";
    List<String> ids = new ArrayList<>();
    List<Long> staleWorkers = new ArrayList<>();

    GpuqCluster.Node a = cluster.start("node-a", "--gpuq.scheduler.cpu-slots=4");
    try (GpuqCluster.Node b = cluster.start("node-b", "--gpuq.scheduler.cpu-slots=0")) {
      HttpApi apiA = a.api();
      for (int i = 0; i < 3; i++) {
        ids.add(apiA.submit(aJob().shell(script).maxAttempts(2).json()));
      }
      await()
          .atMost(Duration.ofSeconds(30))
          .until(() -> ids.stream().allMatch(id -> apiA.state(id).equals("RUNNING")));
      for (String id : ids) {
        staleWorkers.add(apiA.job(id).get("attempts").get(0).get("pid").asLong());
      }

      a.close(); // node-a falls silent; its workers go on running
      assertThat(staleWorkers).allMatch(pid -> ProcessHandle.of(pid).isPresent());
    }

    try (GpuqCluster.Node b = cluster.start("node-b", "--gpuq.scheduler.cpu-slots=4")) {
      HttpApi apiB = b.api();
      await()
          .atMost(Duration.ofSeconds(60))
          .until(() -> ids.stream().allMatch(id -> apiB.state(id).equals("SUCCEEDED")));
      for (String id : ids) {
        JsonNode job = apiB.job(id);
        assertThat(job.get("attempts")).hasSize(2);
        assertThat(job.get("attempts").get(0).get("node").asString()).isEqualTo("node-a");
        assertThat(job.get("attempts").get(0).get("failureReason").asString()).isEqualTo("LOST");
        assertThat(job.get("attempts").get(1).get("node").asString()).isEqualTo("node-b");
      }
      assertThat(staleWorkers).allMatch(pid -> ProcessHandle.of(pid).isPresent());

      try (GpuqCluster.Node returned = cluster.start("node-a", "--gpuq.scheduler.cpu-slots=4")) {
        await()
            .atMost(Duration.ofSeconds(20))
            .untilAsserted(
                () -> assertThat(staleWorkers).noneMatch(pid -> ProcessHandle.of(pid).isPresent()));
      }
    }
    List<String> lines = Files.readAllLines(shared.resolve("ran.txt"));
    assertThat(lines).containsExactlyInAnyOrderElementsOf(ids);
  }

  private static int succeeded(HttpApi api, String suite) {
    return api.get("/api/v1/jobs?state=SUCCEEDED&label=suite:" + suite + "&limit=1000")
        .json()
        .get("items")
        .size();
  }
}
